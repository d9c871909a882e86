"""`write_atomically`: a reader finds the old file or the whole new one; a failed write leaves no trace."""

import os
from pathlib import Path

import pytest

from hfuse.runtime import cache_file
from hfuse.runtime.cache_file import write_atomically

OLD = "old record\n" * 100
NEW = "new record, longer than the old one\n" * 1000


@pytest.mark.parametrize("data", [NEW, NEW.encode()], ids=["text", "bytes"])
def test_the_file_holds_exactly_what_was_written(tmp_path, data):
    path = tmp_path / "folder" / "made" / "key.json"
    write_atomically(path, data)
    assert path.read_bytes() == NEW.encode()
    assert sorted(p.name for p in path.parent.iterdir()) == ["key.json"]


def test_a_reader_sees_the_old_file_until_the_whole_new_one_is_in_place(tmp_path, monkeypatch):
    path = tmp_path / "key.json"
    path.write_text(OLD)
    seen_at_rename = []
    rename = os.replace

    def replace_and_look(source, target):
        # Everything a reader could open before the rename: the target and the finished temporary file.
        seen_at_rename.append((path.read_text(), Path(source).read_text()))
        rename(source, target)

    monkeypatch.setattr(cache_file.os, "replace", replace_and_look)
    write_atomically(path, NEW)
    assert seen_at_rename == [(OLD, NEW)]
    assert path.read_text() == NEW


class FailedWrite(Exception):
    pass


def _fail_in_write(monkeypatch):
    real_fdopen = os.fdopen

    class HalfWritten:
        def __init__(self, handle, mode):
            self.file = real_fdopen(handle, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[: len(data) // 2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_file.os, "fdopen", HalfWritten)


def _fail_in_rename(monkeypatch):
    def refuse(source, target):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(cache_file.os, "replace", refuse)


def _interrupt_in_write(monkeypatch):
    real_fdopen = os.fdopen

    def interrupted(handle, mode):
        real_fdopen(handle, mode).close()
        raise FailedWrite("interrupted")

    monkeypatch.setattr(cache_file.os, "fdopen", interrupted)


FAILURES = [
    ("disk-full-mid-write", _fail_in_write, OSError),
    ("rename-refused", _fail_in_rename, OSError),
    ("interrupted", _interrupt_in_write, FailedWrite),
]


@pytest.mark.parametrize(("fail", "raised"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch, fail, raised):
    path = tmp_path / "key.json"
    path.write_text(OLD)
    fail(monkeypatch)
    with pytest.raises(raised):
        write_atomically(path, NEW)
    assert path.read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.json"]


def test_an_unwritable_folder_raises_os_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError):
        write_atomically(blocker / "key.json", NEW)
