"""The dims a result walks, as the segmenter reads them from the layout algebra: a pointwise kernel
transposes only where an output's innermost dim walks an input dim that is not that input's innermost."""

from __future__ import annotations

import pytest
import torch
from segment_cases import F32, Builder, random_inputs, run_groups, segment_fusion

from hfuse.ir import Op
from hfuse.reference import evaluate
from hfuse.segment.model import SchedulerKind


def _transpose_through_permute(stride_order):
    """exp(x^T) for a row-major x, the result given a stride order (or none)."""
    b = Builder()
    x = b.define_tensor((6, 4), F32)
    wide = b.op(Op.BROADCAST, b.op(Op.PERMUTE, x, dims=[1, 0]), is_broadcast_dim=[False, True, False])
    b.add_output(b.op(Op.EXP, wide), stride_order=stride_order)
    return b.build()


def _broadcast_column_of_column_major():
    """exp of one column of a column-major x, expanded along the rows' innermost dim."""
    b = Builder()
    x = b.define_tensor((6, 4), F32, strides=(1, 6))
    column = b.slice(x, [0, 0], [6, 1])
    b.add_output(b.op(Op.EXP, b.op(Op.EXPAND, column, shape=[6, 8])))
    return b.build()


CASES = [
    ("contiguous_output", lambda: _transpose_through_permute(None), SchedulerKind.TRANSPOSE),
    # dim 1 (extent 1) is innermost in the order asked for: dim 2 walks memory, and walks x's dim 0
    (
        "stride_order_with_extent_one_inside",
        lambda: _transpose_through_permute([2, 0, 1]),
        SchedulerKind.TRANSPOSE,
    ),
    ("stride_order_keeping_x_order", lambda: _transpose_through_permute([0, 1, 2]), SchedulerKind.POINTWISE),
    # the output's innermost dim is a broadcast: it walks no dim of x
    ("broadcast_innermost", _broadcast_column_of_column_major, SchedulerKind.POINTWISE),
]


@pytest.mark.parametrize(("build", "kind"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_kernel_transposes_where_the_output_walks_an_input_across_its_memory(build, kind):
    fusion = build()
    passes, segmentation = segment_fusion(fusion)
    assert [g.kind for g in segmentation.groups] == [kind]
    inputs = random_inputs(fusion)
    torch.testing.assert_close(run_groups(passes.final, segmentation, inputs), evaluate(fusion, inputs))
