"""The real fusion definitions collected in tests/unseen/, and the ones hfuse cannot load yet.

Each file there is a script as its author wrote it: nvFuser's Python tests and repros of every API era
(2022's torch._C._nvfuser to nvfuser_direct), its benchmarks, Thunder's printed fusions and repros, and
scripts pasted in issue threads. Its header names the source, what it computes and what was changed to
make it a standalone script; tests/unseen/SOURCES.md lists them all.

LOAD_FAILURES maps a file's stem to the error `hfuse.load` raises on it today. The tests mark exactly
those loads xfail(strict=True) with that error as the reason: a fix turns the xfail into an XPASS, which
fails until the entry is removed here, so the list always says what does not load yet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hfuse.errors import HfuseError

UNSEEN_DIR = Path(__file__).resolve().parent / "unseen"
PATHS = sorted(UNSEEN_DIR.glob("*.py"))

# the error hfuse.load(text) raises today (the first one it meets, without its line and column) -> the
# files that raise it
_FAILING_LOADS: dict[str, list[str]] = {
    "ParseError: an input tensor has no attribute data_ptr that a definition may use": [
        "add_misaligned_offset",
    ],
    "DefinitionError: index_select: index must be 1-D, got T1: Int[]": [
        "index_select_0d_index",
    ],
    (
        "DefinitionError: input T0 has symbolic extents [-1, -1]: pass the input tensors, as in "
        "fd.fusion(inputs) or fd.execute(inputs), so hfuse knows its shape"
    ): [
        "thunder_traces_doc_printed_definition",
    ],
}
LOAD_FAILURES: dict[str, str] = {stem: error for error, stems in _FAILING_LOADS.items() for stem in stems}


def load_params() -> list:
    """One pytest param per collected file; the loads that fail today are strict xfails naming the error."""
    return [
        pytest.param(
            path,
            id=path.stem,
            marks=[pytest.mark.xfail(strict=True, raises=HfuseError, reason=LOAD_FAILURES[path.stem])]
            if path.stem in LOAD_FAILURES
            else [],
        )
        for path in PATHS
    ]
