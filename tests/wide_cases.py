"""Fusions past int32: a reduction whose row has more than 2**31 elements (the CPU test compiles it for
sm_90, the GPU test runs it)."""

from __future__ import annotations

from segment_cases import Builder

from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op

WIDE_SHAPE = (3, 715827883)  # 2**31 + 1 elements, read from one row of 715827883 expanded three times


def wide_softmax() -> Fusion:
    """A softmax over every element of a bf16 tensor of 2**31 + 1 elements: a normalization whose looped
    row is longer than int32 (Triton types a loop bound in [2**31, 2**32) as uint32)."""
    b = Builder()
    x = b.define_tensor(WIDE_SHAPE, DataType.BFloat16, (0, 1))
    peak = b.bcast(b.op(Op.MAX, x, dims=[0, 1], keepdim=False), WIDE_SHAPE, [])
    e = b.op(Op.EXP, b.op(Op.SUB, x, peak))
    total = b.bcast(b.sum(e, [0, 1]), WIDE_SHAPE, [])
    b.add_output(b.op(Op.DIV, e, total))
    return b.build()
