import base64
import random
import sqlite3
import threading
import zlib

import pytest

from hfuse import share
from hfuse.errors import LimitError, LinkError

SEED_LIKE = """from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[16, 128, 3072], dtype=DataType.Float)
    T1 = fd.ops.slice(T0, start_indices=[0, 0, 0], end_indices=[16, 128, 1024])
    fd.add_output(T1)
"""

TEXTS = {
    "seed-like": SEED_LIKE,
    "empty": "",
    "unicode": "# ünïcode ✓ — 注释\nx = 1\n",
    "long": SEED_LIKE * 200,
}


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_definition_round_trips(text):
    token = share.encode_definition(text)
    assert "=" not in token and "+" not in token and "/" not in token
    assert share.decode_definition(token) == text


def test_encoding_is_zlib_level9_base64url():
    token = share.encode_definition(SEED_LIKE)
    expected = base64.urlsafe_b64encode(zlib.compress(SEED_LIKE.encode(), 9)).decode().rstrip("=")
    assert token == expected


def test_repetitive_definitions_compress():
    assert len(share.encode_definition(SEED_LIKE * 200)) < len(SEED_LIKE * 200) // 50


GOOD = share.encode_definition(SEED_LIKE)
DAMAGED = {
    "not base64": ("ab$cd", "not base64url"),
    "one char too many": (GOOD + "A", "not base64url"),
    "cut short": (GOOD[: len(GOOD) // 2], "cut short|does not decompress"),
    "not zlib": (
        base64.urlsafe_b64encode(b"plain bytes, not zlib").decode().rstrip("="),
        "does not decompress",
    ),
    "not utf-8": (base64.urlsafe_b64encode(zlib.compress(b"\xff\xfe\xfa")).decode().rstrip("="), "not UTF-8"),
}


@pytest.mark.parametrize("token, message", DAMAGED.values(), ids=DAMAGED.keys())
def test_damaged_definition_is_a_link_error(token, message):
    with pytest.raises(LinkError, match=message):
        share.decode_definition(token)


def test_decompression_stops_at_the_script_limit(monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_SCRIPT_CHARS", "100")
    bomb = share.encode_definition("x" * 10_000)
    with pytest.raises(LimitError, match="HFUSE_MAX_SCRIPT_CHARS"):
        share.decode_definition(bomb)


@pytest.fixture
def store(tmp_path):
    return share.ShortLinkStore(tmp_path / "sub" / "links.sqlite3")


def test_short_link_round_trip(store):
    link_id = store.put(SEED_LIKE)
    assert len(link_id) == share.SHORT_ID_LENGTH
    assert store.get(link_id) == SEED_LIKE


def test_same_text_same_id_stored_once(store):
    assert store.put(SEED_LIKE) == store.put(SEED_LIKE) == share.short_id(SEED_LIKE)
    assert store.put(SEED_LIKE + " ") != store.put(SEED_LIKE)
    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM links").fetchone() == (2,)
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_nothing_is_stored_until_asked(store):
    assert store.get(share.short_id(SEED_LIKE)) is None
    assert not store.path.exists()


UNKNOWN_IDS = {"well formed": "AAAAAAAAAAAA", "too short": "abc", "sql": "x' OR '1'='1", "empty": ""}


@pytest.mark.parametrize("link_id", UNKNOWN_IDS.values(), ids=UNKNOWN_IDS.keys())
def test_unknown_short_id_is_none(store, link_id):
    store.put(SEED_LIKE)
    assert store.get(link_id) is None


def test_concurrent_puts_agree(store):
    ids = []
    threads = [threading.Thread(target=lambda: ids.append(store.put(SEED_LIKE))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(ids) == {share.short_id(SEED_LIKE)}


def test_put_refuses_text_over_the_limit(store, monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_SCRIPT_CHARS", "10")
    with pytest.raises(LimitError, match="HFUSE_MAX_SCRIPT_CHARS=10"):
        store.put(SEED_LIKE)


def test_link_params_and_read_link_round_trip(store):
    options = {"strategy": "naive", "outputs": "contiguous"}
    params = share.link_params(SEED_LIKE, options)
    assert params["v"] == "1" and "s" not in params
    state = share.read_link(params, store)
    assert state == share.LinkState(SEED_LIKE, None, options)
    link_id = store.put(SEED_LIKE)
    short = share.link_params(SEED_LIKE, options, short=link_id)
    assert "f" not in short and short["s"] == link_id
    assert share.read_link(short, store) == share.LinkState(SEED_LIKE, link_id, options)


def test_reserved_options_cannot_override_the_definition():
    params = share.link_params("a", {"f": "evil", "v": "9", "view": "x"})
    assert share.decode_definition(params["f"]) == "a" and params["v"] == "1" and params["view"] == "x"


def test_link_without_a_definition_reads_as_none(store):
    assert share.read_link({"strategy": "naive"}, store) is None


BAD_LINKS = {
    "newer version": ({"f": GOOD, "v": "2"}, "format version v='2'"),
    "both f and s": ({"f": GOOD, "s": "AAAAAAAAAAAA", "v": "1"}, "both f= and s="),
    "unknown short id": ({"s": "AAAAAAAAAAAA", "v": "1"}, "not known on this server"),
    "damaged f": ({"f": "%%%", "v": "1"}, "damaged"),
}


@pytest.mark.parametrize("params, message", BAD_LINKS.values(), ids=BAD_LINKS.keys())
def test_bad_links_raise_link_error(store, params, message):
    with pytest.raises(LinkError, match=message):
        share.read_link(params, store)


def test_long_links_are_flagged():
    short_text = share.link_params(SEED_LIKE)
    assert not share.is_long(short_text)
    noise = base64.b64encode(random.Random(0).randbytes(8000)).decode()
    assert share.is_long(share.link_params(noise))
