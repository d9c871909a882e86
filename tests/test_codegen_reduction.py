"""Reduction and normalization kernels against the reference, persistent and looped, inner and outer."""

from __future__ import annotations

import pytest
import torch
from codegen_harness import check, generate, random_tensor, run, whole_group

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options
from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Op
from hfuse.reference import evaluate
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind

F32, F16, BF16, I32, I64, BOOL = (DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32,
                                  DataType.Int, DataType.Bool)  # fmt: skip
NORMALIZATION, REDUCTION = SchedulerKind.NORMALIZATION, SchedulerKind.REDUCTION
# the default heuristics (rows fit one block), and tiny blocks that force loops over columns
FORMS = {"persistent": Options(), "looped": Options(persistent_max_cols=8, loop_cols=8, row_tile=16)}
DTYPES = {"float32": F32, "float16": F16, "bfloat16": BF16}


def _row_broadcast(b, value, shape, kept):
    (out,) = b.add(Op.BROADCAST_IN_DIM, [value], {"shape": shape, "broadcast_dims": kept})
    return out


def layer_norm(dtype, rows=6, cols=40):
    b = FusionBuilder()
    x, w, bias = (
        b.define_tensor([rows, cols], dtype),
        b.define_tensor([cols], dtype),
        b.define_tensor([cols], dtype),
    )
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    var, mean = b.add(Op.VAR_MEAN, [xf], {"dims": [1], "correction": 0, "keepdim": False})
    (shifted,) = b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])
    (rstd,) = b.add(Op.RSQRT, [shifted])
    (centered,) = b.add(Op.SUB, [xf, _row_broadcast(b, mean, [rows, cols], [0])])
    (normed,) = b.add(Op.MUL, [centered, _row_broadcast(b, rstd, [rows, cols], [0])])
    (scaled,) = b.add(Op.MUL, [normed, _row_broadcast(b, w, [rows, cols], [1])])
    (y,) = b.add(Op.ADD, [scaled, _row_broadcast(b, bias, [rows, cols], [1])])
    (out,) = b.add(Op.CAST, [y], {"dtype": dtype})
    b.add_output(out)
    b.add_output(mean)
    b.add_output(rstd)
    return b.build()


def rms_norm(dtype, rows=5, cols=48):
    b = FusionBuilder()
    x, w = b.define_tensor([rows, cols], dtype), b.define_tensor([cols], dtype)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    (sq,) = b.add(Op.MUL, [xf, xf])
    (total,) = b.add(Op.SUM, [sq], {"dims": [1], "keepdim": True, "dtype": F32})
    (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, float(cols))])
    (shifted,) = b.add(Op.ADD, [mean, b.define_scalar(DataType.Double, 1e-6)])
    (rstd,) = b.add(Op.RSQRT, [shifted])
    (normed,) = b.add(Op.MUL, [xf, rstd])
    (y,) = b.add(Op.MUL, [normed, _row_broadcast(b, w, [rows, cols], [1])])
    (out,) = b.add(Op.CAST, [y], {"dtype": dtype})
    b.add_output(out)
    return b.build()


def softmax(dtype, rows=5, cols=33, log=False):
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], dtype)
    (top,) = b.add(Op.MAX, [x], {"dims": [1], "keepdim": False, "dtype": F32})
    (shifted,) = b.add(Op.SUB, [x, _row_broadcast(b, top, [rows, cols], [0])])
    (e,) = b.add(Op.EXP, [shifted])
    (total,) = b.add(Op.SUM, [e], {"dims": [1], "keepdim": True, "dtype": F32})
    if log:
        (log_total,) = b.add(Op.LOG, [total])
        (y,) = b.add(Op.SUB, [shifted, log_total])
    else:
        (y,) = b.add(Op.DIV, [e, total])
    (out,) = b.add(Op.CAST, [y], {"dtype": dtype})
    b.add_output(out)
    return b.build()


def cross_entropy(rows=6, cols=30, pick=Op.TAKE_ALONG_AXIS):
    b = FusionBuilder()
    target_shape = [1] if pick is Op.INDEX_SELECT else [rows, 1]
    logits, target = b.define_tensor([rows, cols], F32), b.define_tensor(target_shape, I64)
    (top,) = b.add(Op.MAX, [logits], {"dims": [1], "keepdim": True, "dtype": F32})
    (shifted,) = b.add(Op.SUB, [logits, top])
    (e,) = b.add(Op.EXP, [shifted])
    (total,) = b.add(Op.SUM, [e], {"dims": [1], "keepdim": True, "dtype": F32})
    (lse,) = b.add(Op.LOG, [total])
    (picked,) = b.add(pick, [shifted, target], {"dim": 1})
    (loss,) = b.add(Op.SUB, [lse, picked])
    b.add_output(loss)
    return b.build(), {target.name: (0, cols)}


NORMS = {"layer_norm": layer_norm, "rms_norm": rms_norm, "softmax": softmax,
         "log_softmax": lambda dtype: softmax(dtype, log=True)}  # fmt: skip


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_normalizations(norm, dtype, form):
    fusion = NORMS[norm](DTYPES[dtype])
    check(fusion, [whole_group(fusion, NORMALIZATION)], options=FORMS[form], reduction_size=48)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("pick", [Op.TAKE_ALONG_AXIS, Op.GATHER, Op.INDEX_SELECT])
def test_cross_entropy_gathers_inside_the_row(form, pick):
    fusion, ranges = cross_entropy(pick=pick)
    assert [g.kind for g in segment(fusion).groups] == [NORMALIZATION]
    check(fusion, [whole_group(fusion, NORMALIZATION)], ranges, options=FORMS[form], reduction_size=30)


REDUCTIONS = [
    ("sum_inner", Op.SUM, F32, [7, 45], {"dims": [1], "keepdim": False, "dtype": F32}),
    ("sum_inner_keepdim_half", Op.SUM, F16, [7, 45], {"dims": [1], "keepdim": True, "dtype": F16}),
    ("sum_two_inner_dims", Op.SUM, BF16, [3, 4, 10], {"dims": [1, 2], "keepdim": False, "dtype": F32}),
    ("sum_outer", Op.SUM, F32, [37, 20], {"dims": [0], "keepdim": False, "dtype": F32}),
    ("sum_middle", Op.SUM, F32, [4, 9, 6], {"dims": [1], "keepdim": True, "dtype": F32}),
    ("sum_full", Op.SUM, F32, [6, 7, 5], {"dims": [0, 1, 2], "keepdim": False, "dtype": F32}),
    ("sum_int32_to_int64", Op.SUM, I32, [5, 13], {"dims": [1], "keepdim": False, "dtype": I64}),
    ("sum_bool", Op.SUM, BOOL, [5, 13], {"dims": [1], "keepdim": False, "dtype": I64}),
    ("max_inner", Op.MAX, F32, [6, 21], {"dims": [1], "keepdim": False, "dtype": F32}),
    ("max_full_half", Op.MAX, F16, [9, 11], {"dims": [0, 1], "keepdim": False, "dtype": F16}),
    ("min_outer_int", Op.MIN, I64, [19, 6], {"dims": [0], "keepdim": False, "dtype": I64}),
    ("prod_inner", Op.PROD, F32, [4, 9], {"dims": [1], "keepdim": False, "dtype": F32}),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    ("op", "dtype", "shape", "attrs"), [c[1:] for c in REDUCTIONS], ids=[c[0] for c in REDUCTIONS]
)
def test_reductions(op, dtype, shape, attrs, form):
    b = FusionBuilder()
    x = b.define_tensor(shape, dtype)
    (out,) = b.add(op, [x], attrs)
    b.add_output(out)
    fusion = b.build()
    low_high = (0.5, 1.5) if op is Op.PROD else (-3, 3)
    check(
        fusion,
        [whole_group(fusion, REDUCTION)],
        {x.name: low_high},
        FORMS[form],
        reduction_size=shape[0] * 45,
    )


STATISTICS = [
    ("var_mean_inner", Op.VAR_MEAN, [6, 40], {"dims": [1], "correction": 1, "keepdim": False}),
    ("var_mean_keepdim", Op.VAR_MEAN, [3, 4, 10], {"dims": [2], "correction": 0, "keepdim": True}),
    ("var_outer", Op.VAR, [30, 7], {"dims": [0], "correction": 1, "keepdim": False}),
    ("var_full", Op.VAR, [5, 9], {"dims": [0, 1], "correction": 1, "keepdim": False}),
    ("welford", Op.WELFORD, [6, 20], {"dims": [1]}),
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
@pytest.mark.parametrize(
    ("op", "shape", "attrs"), [c[1:] for c in STATISTICS], ids=[c[0] for c in STATISTICS]
)
def test_statistics(op, shape, attrs, dtype, form):
    b = FusionBuilder()
    x = b.define_tensor(shape, dtype)
    for out in b.add(op, [x], attrs):
        b.add_output(out)
    fusion = b.build()
    check(fusion, [whole_group(fusion, REDUCTION)], options=FORMS[form], reduction_size=45)


LAYOUTS = {
    "row_major_is_outer": ((40, 16), (16, 1), True),
    "column_major_is_inner": ((40, 16), (1, 40), False),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_column_reduction_then_normalize(layout, form):
    """Batch-norm-like: a statistic per column, then the normalized input; the tile follows memory order."""
    shape, strides, outer = LAYOUTS[layout]
    b = FusionBuilder()
    x = b.define_tensor(shape, F32, strides=strides)
    (total,) = b.add(Op.SUM, [x], {"dims": [0], "keepdim": True, "dtype": F32})
    (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, 40.0)])
    (y,) = b.add(Op.SUB, [x, mean])
    b.add_output(y)
    fusion = b.build()
    group = whole_group(fusion, NORMALIZATION)
    kernel = generate(group, fusion, FORMS[form])
    assert kernel.config["parts"][0]["outer"] is outer
    check(fusion, [group], options=FORMS[form], reduction_size=40)


def test_inner_reduction_layouts():
    fusion = softmax(F32, rows=64, cols=1000)
    persistent = generate(whole_group(fusion, NORMALIZATION), fusion).config["parts"][0]
    assert (persistent["ROWS"], persistent["COLS"], persistent["persistent"]) == (4, 1024, True)
    looped = generate(whole_group(fusion, NORMALIZATION), fusion, Options(persistent_max_cols=512)).source
    assert looped.count("for start") == 2  # max and sum of exp in one online pass, then the outputs


def test_two_reduction_spaces_in_one_group_are_refused():
    b = FusionBuilder()
    x = b.define_tensor([4, 6], F32)
    (rows,) = b.add(Op.SUM, [x], {"dims": [1], "keepdim": False, "dtype": F32})
    (cols,) = b.add(Op.SUM, [x], {"dims": [0], "keepdim": False, "dtype": F32})
    b.add_output(rows)
    b.add_output(cols)
    fusion = b.build()
    with pytest.raises(
        UnsupportedError, match=r"reduces \[4, 6\] over dims \[1\] and also .*split the group"
    ):
        generate(whole_group(fusion, REDUCTION), fusion)


def test_reduction_group_without_reduction_is_refused():
    b = FusionBuilder()
    x = b.define_tensor([4, 6], F32)
    (y,) = b.add(Op.NEG, [x])
    b.add_output(y)
    fusion = b.build()
    with pytest.raises(UnsupportedError, match="group 0 is a reduction group without a reduction"):
        generate(whole_group(fusion, REDUCTION), fusion)


def test_online_softmax_handles_rows_that_start_with_or_are_all_minus_infinity():
    fusion = softmax(F32, rows=4, cols=40)
    group = whole_group(fusion, NORMALIZATION)
    x = random_tensor(fusion.value(fusion.inputs[0]))
    x[0, :16] = float("-inf")  # two whole column blocks of -inf before the first finite value
    x[1] = float("-inf")  # nothing finite: the reference's exp(-inf - -inf) makes the row nan
    x[2, 30:] = float("-inf")
    (got,) = run(group, fusion, {fusion.inputs[0]: x}, FORMS["looped"]).values()
    (expected,) = evaluate(fusion, [x])
    torch.testing.assert_close(got, expected, equal_nan=True)
    assert torch.isnan(got[1]).all() and not torch.isnan(got[[0, 2, 3]]).any()


@pytest.mark.parametrize("form", FORMS)
def test_a_column_major_input_normalized_into_a_row_major_output_uses_tall_tiles(form):
    b = FusionBuilder()
    x = b.define_tensor([40, 24], F32, strides=[1, 40])  # each column (the reduced dim) is contiguous
    (squares,) = b.add(Op.MUL, [x, x])
    (total,) = b.add(Op.SUM, [squares], {"dims": [0], "keepdim": False, "dtype": F32})
    (scale,) = b.add(Op.RSQRT, [total])
    (y,) = b.add(Op.MUL, [x, _row_broadcast(b, scale, [40, 24], [1])])
    b.add_output(y)
    fusion = b.build()
    group = whole_group(fusion, NORMALIZATION)
    part = generate(group, fusion, FORMS[form]).config["parts"][0]
    assert (part["ROWS"], part["outer"]) == (8, False)  # 8 kept rows a tile: stores write 32-byte runs
    check(fusion, [group], options=FORMS[form], reduction_size=40)
