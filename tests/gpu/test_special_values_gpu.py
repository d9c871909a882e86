"""On a CUDA device: the special-value sweep of tests/test_special_values.py, every op of the op table x
every dtype it takes x every special value, through the compiled kernels against the torch reference on
the device, NaN for NaN. The interpreter's own quirks (bf16 denormals flushed, fp8 e4m3 conversion) do
not apply here, and the reference is torch on CUDA: the mismatches the CPU sweep expects from torch's CPU
kernels are expected to pass here."""

from __future__ import annotations

import pytest
from special_sweep import DTYPES, op_mismatches, softmax_mismatches, swept_ops
from test_special_values import OPEN

pytestmark = pytest.mark.gpu

PARAMS = [
    pytest.param(
        op,
        dtype,
        id=f"{op.frontend_name}-{dtype.name}",
        marks=[pytest.mark.xfail(strict=False, reason=OPEN[key])]
        if (key := f"{op.frontend_name}-{dtype.name}") in OPEN
        else [],
    )
    for op in swept_ops()
    for dtype in DTYPES
]


@pytest.mark.parametrize(("op", "dtype"), PARAMS)
def test_the_op_agrees_with_torch_on_special_values_on_cuda(op, dtype):
    found = op_mismatches(op, dtype)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d.is_float], ids=lambda d: d.name)
def test_a_softmax_agrees_with_torch_on_special_values_on_cuda(dtype):
    found = softmax_mismatches(dtype)
    assert not found, "\n".join(found)
