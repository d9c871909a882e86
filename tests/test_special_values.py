"""Every op of the op table, for every dtype it takes, on the special values (NaN, +-inf, +-0.0, denormals,
extremes, integer extremes, out-of-range scalars, bool) through the generated kernels in the interpreter
agrees with the torch reference, NaN for NaN (tests/special_sweep.py builds the cases; in the interpreter
it pairs each dtype with one other and takes fewer scalars, to stay fast; tests/gpu/test_special_values_gpu.py
runs the whole sweep on CUDA).

Where they differ, the table below says why, as strict xfails: so a fix shows at once. Two kinds:
- TORCH_CPU: torch's CPU kernels or Triton's interpreter differ from torch on CUDA, and the kernels follow
  CUDA (the GPU sweep expects these to pass);
- OPEN: the kernels differ from torch; still to fix.
"""

from __future__ import annotations

import pytest
from special_sweep import DTYPES, op_mismatches, softmax_mismatches, swept_ops

from hfuse.dtypes import DataType

_DIVISOR = (
    "torch's vectorized CPU fmod gives NaN for a denormal divisor (its scalar path and CUDA's fmod give the "
    "exact remainder, as the kernel does)"
)
FLOATS = ("Double", "Float", "Half", "BFloat16")
TORCH_CPU = {
    **{f"{op}-{dtype}": _DIVISOR for op in ("fmod", "remainder", "mod") for dtype in FLOATS},
}  # fmt: skip

OPEN: dict[str, str] = {}


def _marks(key: str) -> list:
    reason = TORCH_CPU.get(key) or OPEN.get(key)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


PARAMS = [
    pytest.param(op, dtype, id=key, marks=_marks(key))
    for op in swept_ops()
    for dtype in DTYPES
    if (key := f"{op.frontend_name}-{dtype.name}")
]


@pytest.mark.parametrize(("op", "dtype"), PARAMS)
def test_the_op_agrees_with_torch_on_special_values(op, dtype):
    found = op_mismatches(op, dtype)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d.is_float], ids=lambda d: d.name)
def test_a_softmax_agrees_with_torch_on_special_values(dtype: DataType):
    found = softmax_mismatches(dtype)
    assert not found, "\n".join(found)


def test_the_tables_name_only_swept_cases():
    swept = {f"{op.frontend_name}-{dtype.name}" for op in swept_ops() for dtype in DTYPES}
    assert set(TORCH_CPU) <= swept and set(OPEN) <= swept
    assert not set(TORCH_CPU) & set(OPEN)
