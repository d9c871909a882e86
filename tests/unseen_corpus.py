"""The real fusion definitions collected in tests/unseen/, and the ones hfuse cannot load yet.

Each file there is a script as its author wrote it: nvFuser's Python tests and repros of every API era
(2022's torch._C._nvfuser to nvfuser_direct), its benchmarks, Thunder's printed fusions and repros, and
scripts pasted in issue threads. Its header names the source, what it computes and what was changed to
make it a standalone script; tests/unseen/SOURCES.md lists them all.

LOAD_FAILURES maps a file's stem to the error `hfuse.load` raises on it today. The tests mark exactly
those loads xfail(strict=True) with that error as the reason: a fix turns the xfail into an XPASS, which
fails until the entry is removed here, so the list always says what does not load yet. RUN_FAILURES
(and the device's own) do the same for the definitions that load but cannot run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from hfuse.errors import HfuseError

UNSEEN_DIR = Path(__file__).resolve().parent / "unseen"
PATHS = sorted(UNSEEN_DIR.glob("*.py"))

# the error hfuse.load(text) raises today (the first one it meets, without its line and column) -> the
# files that raise it
_FAILING_LOADS: dict[str, list[str]] = {}
LOAD_FAILURES: dict[str, str] = {stem: error for error, stems in _FAILING_LOADS.items() for stem in stems}

# file stem -> why its runs fail on every device although it loads: each a limit of the kernels
RUN_FAILURES: dict[str, str] = {}
# ... and on one device only
CPU_RUN_FAILURES = {
    "int64_div_truediv": (
        "DefinitionError: the script's make_tensor int64 divisors include 0, and torch raises "
        "ZeroDivisionError on the CPU"
    ),
}
# file stem -> why its results on CUDA are undefined, so that a run may or may not agree with torch's
CUDA_UNDEFINED_RESULTS = {
    "int64_div_truediv": (
        "the script's make_tensor int64 divisors include 0: an integer division by zero is undefined, and "
        "torch's CUDA kernel returns 4294967295 where Triton's may return -1"
    ),
}


def fresh_copies(inputs: list) -> list:
    """Copies of a script's inputs in their own layouts: strides, offsets, expanded (stride 0) and
    overlapping dims kept, which `Tensor.clone` would make dense."""
    copies = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            copy = torch.empty(0, dtype=x.dtype, device=x.device)
            x = copy.set_(x.untyped_storage().clone(), x.storage_offset(), x.size(), x.stride())
        copies.append(x)
    return copies


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
