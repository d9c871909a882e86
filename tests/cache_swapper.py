"""An attacker of the kernel cache: swaps a cache file for tampered code, over and over, as fast as it can.

Run as `python cache_swapper.py SHARED TAMPERED`. SHARED is a file the test maps into memory: byte 0 set
to 1 stops the swapper, bytes 8-16 count its swaps (little-endian), and from byte 16 on the test writes
the path of the cache file it is loading now (NUL-padded). Each swap writes TAMPERED's bytes to a
temporary file and renames it over that path, as a process sharing the cache folder could.
"""

from __future__ import annotations

import mmap
import os
import sys
from pathlib import Path

STOP, SWAPS, TARGET = 0, slice(8, 16), slice(16, None)


def swap_until_stopped(shared_path: str, tampered_path: str) -> None:
    tampered = Path(tampered_path).read_bytes()
    swaps = 0
    with open(shared_path, "r+b") as handle, mmap.mmap(handle.fileno(), 0) as shared:
        while shared[STOP] == 0:
            target = shared[TARGET].rstrip(b"\0").decode()
            if not target:
                continue
            tmp = f"{target}.swap"
            try:
                with open(tmp, "wb") as out:
                    out.write(tampered)
                os.replace(tmp, target)
            except OSError:
                continue
            swaps += 1
            shared[SWAPS] = swaps.to_bytes(8, "little")


if __name__ == "__main__":
    swap_until_stopped(sys.argv[1], sys.argv[2])
