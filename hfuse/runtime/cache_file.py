"""The one way the runtime writes a file of its cache: to a temporary name beside it, then renamed into place.

A rename within one folder is atomic, so a reader finds the old file or the whole new one, never part
of one. A write that fails removes its temporary file; a writer killed mid-write leaves only a
`<stem>.<random>.tmp` file, which no reader opens.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes | str) -> None:
    """Writes `data` (text as UTF-8) to `path`, making its folder; raises OSError when it cannot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f"{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as tmp:
            tmp.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
