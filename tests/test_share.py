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


def _token(compressed: bytes) -> str:
    return base64.urlsafe_b64encode(compressed).decode().rstrip("=")


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
    "trailing bytes": (_token(zlib.compress(SEED_LIKE.encode()) + b"junk"), "4 bytes follow the end"),
    "a second zlib stream": (
        _token(zlib.compress(SEED_LIKE.encode()) + zlib.compress(b"import os\n")),
        r"\d+ bytes follow the end of its compressed text",
    ),
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


class SpiedDecompressor:
    """zlib's decompressor, counting the bytes it gives out."""

    given = 0
    make = zlib.decompressobj

    def __init__(self):
        self.inflater = SpiedDecompressor.make()

    def decompress(self, data, max_length=0):
        out = self.inflater.decompress(data, max_length)
        SpiedDecompressor.given += len(out)
        return out

    def __getattr__(self, name):
        return getattr(self.inflater, name)


# HFUSE_MAX_SCRIPT_CHARS=100: a text of 100 characters takes at most 400 bytes.
OVER_LONG = {
    "a bomb": ("x" * 10_000_000, "holds more than 400 bytes"),
    "four times the limit": ("x" * 400, "holds 400 characters"),
    "one character over": ("x" * 101, "holds 101 characters"),
}


@pytest.mark.parametrize("text, size", OVER_LONG.values(), ids=OVER_LONG.keys())
def test_a_text_over_the_script_limit_is_refused_at_decode_without_inflating_past_it(monkeypatch, text, size):
    monkeypatch.setenv("HFUSE_MAX_SCRIPT_CHARS", "100")
    monkeypatch.setattr(SpiedDecompressor, "given", 0)
    token = share.encode_definition(text)
    monkeypatch.setattr(share.zlib, "decompressobj", SpiedDecompressor)
    with pytest.raises(LinkError, match=f"{size}, longer than HFUSE_MAX_SCRIPT_CHARS=100") as caught:
        share.decode_definition(token)
    assert isinstance(caught.value, LimitError)
    assert SpiedDecompressor.given <= 401


@pytest.mark.parametrize(
    "text", ["x" * 100, "注" * 100, "\U0001f600" * 100], ids=["ascii", "3-byte", "4-byte"]
)
def test_a_text_at_the_script_limit_decodes(monkeypatch, text):
    monkeypatch.setenv("HFUSE_MAX_SCRIPT_CHARS", "100")
    assert share.decode_definition(share.encode_definition(text)) == text


LONE_SURROGATE = "with FusionDefinition() as fd:\n    # \ud800\n"
WITH_A_LONE_SURROGATE = {
    "encode": lambda store: share.encode_definition(LONE_SURROGATE),
    "link params": lambda store: share.link_params(LONE_SURROGATE),
    "short id": lambda store: share.short_id(LONE_SURROGATE),
    "store": lambda store: store.put(LONE_SURROGATE),
}


@pytest.mark.parametrize("action", WITH_A_LONE_SURROGATE.values(), ids=WITH_A_LONE_SURROGATE.keys())
def test_a_lone_surrogate_is_a_link_error_and_nothing_is_stored(store, action):
    with pytest.raises(
        LinkError, match=r"lone surrogate character \(U\+D800\) at line 2, column 7.*Remove it"
    ):
        action(store)
    assert not store.path.exists()


@pytest.mark.parametrize("depth", [0, 2], ids=["parent", "grandparent"])
def test_a_store_whose_folder_is_a_file_is_a_link_error_naming_the_setting(tmp_path, depth):
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = share.ShortLinkStore(blocker.joinpath(*["sub"] * depth, "links.sqlite3"))
    message = rf"HFUSE_LINK_DB=.*cannot be opened: {blocker} is a file, not a folder.*Long links still work"
    with pytest.raises(LinkError, match=message):
        store.put(SEED_LIKE)
    with pytest.raises(LinkError, match=message):
        store.get(share.short_id(SEED_LIKE))
    with pytest.raises(LinkError, match=message):
        share.read_link({"s": share.short_id(SEED_LIKE), "v": "1"}, store)
    assert share.read_link({"f": GOOD, "v": "1"}, store).text == SEED_LIKE


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


def _put_from_eight_threads(store: share.ShortLinkStore) -> tuple[list[str], list[LinkError]]:
    ids, errors = [], []

    def put():
        try:
            ids.append(store.put(SEED_LIKE))
        except LinkError as error:
            errors.append(error)

    threads = [threading.Thread(target=put) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return ids, errors


def test_concurrent_puts_on_a_new_file_agree(tmp_path):
    # Writers racing to create each file: SQLite refuses a journal-mode change during another
    # connection's setup without waiting, about once in a hundred new files.
    for attempt in range(150):
        ids, errors = _put_from_eight_threads(share.ShortLinkStore(tmp_path / str(attempt) / "links.sqlite3"))
        assert errors == [] and set(ids) == {share.short_id(SEED_LIKE)}


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


def test_a_compared_definition_travels_beside_the_definition_and_its_short_id(store):
    params = share.link_params(SEED_LIKE, {"strategy": "naive"}, compared="other text")
    assert share.decode_definition(params["c"]) == "other text"
    assert share.read_link(params, store) == share.LinkState(
        SEED_LIKE, None, {"strategy": "naive"}, "other text"
    )
    link_id = store.put(SEED_LIKE)
    short = share.link_params(SEED_LIKE, short=link_id, compared="other text")
    assert share.read_link(short, store) == share.LinkState(SEED_LIKE, link_id, {}, "other text")
    assert "c" not in share.link_params(SEED_LIKE, compared="")


def test_a_damaged_compared_definition_is_named_in_the_error(store):
    params = {**share.link_params(SEED_LIKE), "c": "%%%"}
    with pytest.raises(LinkError, match=r"compared definition \(c=\) is damaged"):
        share.read_link(params, store)


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
