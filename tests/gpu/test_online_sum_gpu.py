"""On a CUDA device: the online max and sum of exp of a softmax, logsumexp or cross-entropy takes each term's
exp with the ex2 that flushes results below 2**-126 to zero (`_exp_summand`). Its sums are those of
tl.exp's ex2 to the bit, over rows whose terms reach far below 2**-126, through -inf and NaN."""

from __future__ import annotations

import pytest
import torch
from test_codegen_reduction import logsumexp, softmax

from hfuse.codegen import mathlib
from hfuse.dtypes import DataType
from hfuse.pipeline import compile_fusion
from hfuse.runtime import clear_cache, execute

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]

F32, BF16 = DataType.Float, DataType.BFloat16

TL_EXP = """

@triton.jit
def _exp_summand(x):
    return tl.exp(x)
"""


CASES = {
    "logsumexp looped, bf16": (logsumexp, BF16, 300, 50257),
    "logsumexp split across programs": (logsumexp, F32, 3, 200003),
    "softmax looped": (softmax, F32, 300, 40000),
    "softmax split across programs": (softmax, F32, 32, 40000),
}


def _wide_rows(rows: int, cols: int, dtype: DataType) -> torch.Tensor:
    """Values spread over +-600, so that most x - max(x) lie below log(2**-126) (-87.3); one row holds
    -inf, one is all -inf, one holds a NaN."""
    x = torch.randn(rows, cols, device="cuda", generator=torch.Generator("cuda").manual_seed(rows)) * 200
    x[0, ::7] = float("-inf")
    x[1] = float("-inf")
    x[2, cols // 2] = float("nan")
    return x.to(dtype.torch)


@pytest.mark.parametrize("name", CASES)
def test_the_online_sum_with_flushed_exps_equals_tl_exps_bitwise(name, monkeypatch):
    make, dtype, rows, cols = CASES[name]
    fusion = make(dtype, rows, cols)
    assert any("_exp_summand(" in kernel.source for kernel in compile_fusion(fusion).kernels)
    x = _wide_rows(rows, cols, dtype)
    (flushed,), _, _ = execute(fusion, [x.clone()], alias_outputs=False)
    monkeypatch.setitem(mathlib._ALL_BY_PLACE, "_exp_summand", TL_EXP)
    clear_cache()
    assert not any("ftz" in kernel.source for kernel in compile_fusion(fusion).kernels)
    (exact,), _, _ = execute(fusion, [x.clone()], alias_outputs=False)
    torch.testing.assert_close(flushed, exact, rtol=0, atol=0, equal_nan=True)
