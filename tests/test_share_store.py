"""The short-link store under stress: its limits, a writer killed mid-write, damaged entries and files."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from hfuse import share
from hfuse.errors import LimitError, LinkError

TEXT = "with FusionDefinition() as fd:\n    T0 = fd.define_tensor(shape=[4, 8])\n    fd.add_output(T0)\n"
WRITER_START_S = 60


@pytest.fixture
def store(tmp_path):
    return share.ShortLinkStore(tmp_path / "links.sqlite3")


LIMITS = {
    "link length": (
        "HFUSE_MAX_LINK_CHARS",
        "20",
        lambda store: share.read_link({"f": share.encode_definition(TEXT), "v": "1"}, store),
        "has \\d+ characters; this server opens links up to HFUSE_MAX_LINK_CHARS=20. Raise",
    ),
    "stored size": (
        "HFUSE_MAX_SHORT_LINK_BYTES",
        "16",
        lambda store: store.put(TEXT),
        f"is {len(TEXT)} bytes; this server stores short links up to HFUSE_MAX_SHORT_LINK_BYTES=16 bytes",
    ),
    "stored size counts UTF-8 bytes": (
        "HFUSE_MAX_SHORT_LINK_BYTES",
        "10",
        lambda store: store.put("注释注释"),  # 4 characters, 12 bytes
        "is 12 bytes; .*HFUSE_MAX_SHORT_LINK_BYTES=10",
    ),
    "store full": (
        "HFUSE_MAX_SHORT_LINKS",
        "2",
        lambda store: [store.put(f"# {i}\n{TEXT}") for i in range(3)],
        r"store is full \(2 links, HFUSE_MAX_SHORT_LINKS=2\)",
    ),
}


@pytest.mark.parametrize("env, value, action, message", LIMITS.values(), ids=LIMITS.keys())
def test_each_limit_refuses_and_names_its_setting(store, monkeypatch, env, value, action, message):
    monkeypatch.setenv(env, value)
    with pytest.raises(LimitError, match=message):
        action(store)


def test_a_full_store_still_serves_and_re_stores_what_it_holds(store, monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_SHORT_LINKS", "1")
    link_id = store.put(TEXT)
    assert store.put(TEXT) == link_id and store.get(link_id) == TEXT
    with pytest.raises(LimitError):
        store.put(TEXT + "\n")
    with closing(sqlite3.connect(store.path)) as connection:
        assert connection.execute("SELECT COUNT(*) FROM links").fetchone() == (1,)


def test_links_within_the_limits_still_open(store, monkeypatch):
    token = share.encode_definition(TEXT)
    monkeypatch.setenv("HFUSE_MAX_LINK_CHARS", str(len(token)))
    monkeypatch.setenv("HFUSE_MAX_SHORT_LINK_BYTES", str(len(TEXT)))
    assert share.read_link({"f": token, "v": "1"}, store).text == TEXT
    assert store.get(store.put(TEXT)) == TEXT


# The writer: commits texts one by one, printing each id once its transaction has committed. In
# "mid-transaction" mode it then opens a transaction, inserts rows and waits inside it to be killed.
WRITER = """
import sqlite3, sys
from pathlib import Path
from hfuse import share

store = share.ShortLinkStore(Path(sys.argv[1]))
mode, count = sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
for i in range(count):
    text = f"# entry {i}\\n" + "x = 1\\n" * (i % 50)
    print(store.put(text), flush=True)
if mode == "mid-transaction":
    connection = sqlite3.connect(sys.argv[1], isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    for i in range(1000):
        text = f"# never committed {i}"
        connection.execute("INSERT INTO links VALUES (?, ?, 0)", (share.short_id(text), text))
    print("inside", flush=True)
    sys.stdin.read()
"""


def entry(i: int) -> str:
    return f"# entry {i}\n" + "x = 1\n" * (i % 50)


def kill_writer(path: Path, mode: str, count: int, after_lines: int) -> list[str]:
    """Start the writer, SIGKILL it after `after_lines` lines of output; the ids it reported committed."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), mode, str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    lines = []
    try:
        deadline = time.monotonic() + WRITER_START_S
        while len(lines) < after_lines and time.monotonic() < deadline:
            line = writer.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=10)
        writer.stdin.close()
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    return [line for line in lines if line not in ("ready", "inside")]


KILLS = {
    # killed inside an open transaction of 1000 inserts: none of them may appear
    "inside a transaction": ("mid-transaction", 40, 42),
    # killed while committing texts in a tight loop, after 200 reported commits
    "while committing": ("loop", 100_000, 201),
}


@pytest.mark.parametrize("mode, count, after_lines", KILLS.values(), ids=KILLS.keys())
def test_a_writer_killed_mid_write_loses_no_committed_text(store, mode, count, after_lines):
    committed = kill_writer(store.path, mode, count, after_lines)
    assert len(committed) == after_lines - (2 if mode == "mid-transaction" else 1)
    for i, link_id in enumerate(committed):
        assert store.get(link_id) == entry(i)
    with closing(sqlite3.connect(store.path)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        texts = [text for (text,) in connection.execute("SELECT text FROM links")]
    assert not [text for text in texts if text.startswith("# never committed")]
    # a writer in a loop may commit a few more before the kill lands: whole entries are stored, in order
    assert sorted(texts) == sorted(entry(i) for i in range(len(texts)))
    assert len(texts) >= len(committed)
    assert store.get(store.put(TEXT)) == TEXT  # the store takes new texts after the crash


def tamper(store, sql: str) -> None:
    with closing(sqlite3.connect(store.path)) as connection, connection:
        connection.execute(sql)


DAMAGED_ROWS = {
    "text edited": "UPDATE links SET text = text || ' # edited'",
    "text replaced by a blob": "UPDATE links SET text = X'00ff00'",
    "id swapped": "UPDATE links SET id = 'AAAAAAAAAAAA'",
}


@pytest.mark.parametrize("sql", DAMAGED_ROWS.values(), ids=DAMAGED_ROWS.keys())
def test_a_damaged_entry_is_refused_not_served(store, sql):
    link_id = store.put(TEXT)
    tamper(store, sql)
    read_id = "AAAAAAAAAAAA" if "id =" in sql else link_id
    with pytest.raises(LinkError, match=f"s={read_id} is damaged on this server.*Ask for a long link"):
        store.get(read_id)


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not an SQLite database, it is garbage " * 200)


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:1500])


def overwritten_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)
    path.write_bytes(bytes(data))


DAMAGED_FILES = {"garbage": garbage, "truncated": truncated, "pages overwritten": overwritten_pages}


@pytest.mark.parametrize("damage", DAMAGED_FILES.values(), ids=DAMAGED_FILES.keys())
def test_a_damaged_file_is_a_link_error_naming_the_setting(store, damage):
    for i in range(300):  # several pages of rows
        store.put(f"# {i}\n{TEXT}")
    link_id = share.short_id(f"# 7\n{TEXT}")
    assert not list(store.path.parent.glob("links.sqlite3-*"))  # the last close checkpointed the WAL
    damage(store.path)
    message = "short-link store \\(HFUSE_LINK_DB\\) cannot be used|is damaged on this server"
    with pytest.raises(LinkError, match=message):
        store.get(link_id)
    with pytest.raises(LinkError, match=message):
        store.put("# a new text\n" + TEXT)
    with pytest.raises(LinkError, match=message):
        share.read_link({"s": link_id, "v": "1"}, store)
