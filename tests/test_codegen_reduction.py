"""Reduction and normalization kernels against the reference, persistent and looped, inner and outer,
in one launch or split in two."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch
from codegen_harness import DEVICE, SPLIT, check, generate, max_and_exp_sum, random_tensor, run, whole_group

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options
from hfuse.codegen.split import choose_split
from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Op
from hfuse.reference import evaluate
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind

F32, F16, BF16, I32, I64, BOOL = (DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32,
                                  DataType.Int, DataType.Bool)  # fmt: skip
NORMALIZATION, REDUCTION = SchedulerKind.NORMALIZATION, SchedulerKind.REDUCTION
# the default heuristics (rows fit one block), tiny blocks that force loops over columns walking forward,
# and those loops walking an outer reduction's rows each the other way from the loop before, and a row a
# program, its blocks from the aligned element before it where its length is no multiple of the vector width
LOOPED = Options(persistent_max_cols=8, persistent_reread_cols=0, loop_cols=8, row_tile=16, outer_tile=16)
FORMS = {
    "persistent": Options(),
    "looped": dataclasses.replace(LOOPED, alternate_passes=False),
    "alternating": LOOPED,
    "aligned": dataclasses.replace(LOOPED, row_tile=8),
}
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
    "expanded_rows_is_outer": ((40, 16), (0, 1), True),  # the stride-0 dim walks no memory
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
    looping = Options(persistent_max_cols=512, persistent_reread_cols=0)
    looped = generate(whole_group(fusion, NORMALIZATION), fusion, looping).source
    # max and sum of exp in one online pass, then the outputs walking back from the last block
    assert (looped.count("for start"), looped.count("for block")) == (1, 1)


@pytest.mark.parametrize(
    "rows, cols, warps",
    [(64, 1000, 4), (1, 1024, 4), (64, 2048, 8), (64, 4096, 8), (64, 300, 8), (64, 16384, 16)],
    ids=["4-rows-of-1024", "1-row-of-1024", "2-rows-of-2048", "1-row-of-4096", "8-rows-of-512", "16384"],
)
def test_row_reduction_warps(rows, cols, warps):
    fusion = softmax(F32, rows=rows, cols=cols)
    assert generate(whole_group(fusion, NORMALIZATION), fusion).num_warps == warps


def test_tall_tiles_of_1024_columns_keep_their_warps():
    b = FusionBuilder()
    x = b.define_tensor([1000, 64], F32, strides=[1, 1000])  # reduced dim contiguous, output row-major
    (total,) = b.add(Op.SUM, [x], {"dims": [0], "keepdim": False, "dtype": F32})
    (y,) = b.add(Op.DIV, [x, _row_broadcast(b, total, [1000, 64], [1])])
    b.add_output(y)
    fusion = b.build()
    kernel = generate(whole_group(fusion, NORMALIZATION), fusion)
    assert (kernel.config["parts"][0]["ROWS"], kernel.config["parts"][0]["COLS"]) == (8, 1024)
    assert kernel.num_warps == 16


@pytest.mark.parametrize("warps", [1, 2, 16])
def test_options_warps_sets_every_launch(warps):
    fusion = softmax(F32, rows=8, cols=40)
    group = whole_group(fusion, NORMALIZATION)
    kernel = generate(group, fusion, Options(warps=warps))
    assert kernel.num_warps == warps and f"num_warps={warps})" in kernel.source
    check(fusion, [group], options=Options(warps=warps), reduction_size=40)
    b = FusionBuilder()
    x = b.define_tensor([2, 64], F32)
    (total,) = b.add(Op.SUM, [x], {"dims": [0, 1], "keepdim": False, "dtype": F32})
    b.add_output(total)
    full = b.build()
    split = generate(whole_group(full, REDUCTION), full, dataclasses.replace(SPLIT, warps=warps))
    assert split.launches == 2 and split.source.count(f"num_warps={warps})") == 2


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


def test_a_planned_row_output_that_holds_no_row_is_refused():
    fusion = softmax(F32)
    group = whole_group(fusion, NORMALIZATION)
    as_rows = dataclasses.replace(group, row_outputs=group.outputs)
    with pytest.raises(
        UnsupportedError, match=r"writes T\d+: Float\[5, 33\], which is neither that shape nor one"
    ):
        generate(as_rows, fusion)


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


# ---- split reductions: parts of each row in one launch, their partials combined in a second ----------


def _split(fusion, kind=REDUCTION):
    """The group's kernel under SPLIT, checked to be two kernels of one module."""
    group = whole_group(fusion, kind)
    kernel = generate(group, fusion, SPLIT)
    assert kernel.launches == 2 and kernel.source.count("\ndef hfuse_") == 2
    assert f"def {group.name}_partials(" in kernel.source and "torch.empty(" in kernel.source
    assert "A split reduction in" in kernel.source
    return group, kernel


SPLIT_REDUCTIONS = [
    # parts: 777 columns in 14 parts of 56, the last of 49 (column and part masks)
    ("sum_full", Op.SUM, F32, [37, 21], {"dims": [0, 1], "keepdim": False, "dtype": F32}),
    ("max_full", Op.MAX, F32, [37, 21], {"dims": [0, 1], "keepdim": False, "dtype": F32}),
    ("min_full", Op.MIN, F32, [37, 21], {"dims": [0, 1], "keepdim": False, "dtype": F32}),
    ("max_full_int32", Op.MAX, I32, [37, 21], {"dims": [0, 1], "keepdim": False, "dtype": I32}),
    ("min_full_int64", Op.MIN, I64, [37, 21], {"dims": [0, 1], "keepdim": False, "dtype": I64}),
    ("max_full_half", Op.MAX, F16, [9, 11], {"dims": [0, 1], "keepdim": False, "dtype": F16}),
    ("sum_leaving_3_rows", Op.SUM, F32, [3, 100], {"dims": [1], "keepdim": False, "dtype": F32}),
    ("sum_even_parts", Op.SUM, F32, [4, 64], {"dims": [1], "keepdim": False, "dtype": F32}),  # no masks
    ("sum_leaving_2_rows_outer", Op.SUM, F32, [100, 2], {"dims": [0], "keepdim": True, "dtype": F32}),
    ("sum_middle_dim", Op.SUM, BF16, [2, 60, 3], {"dims": [1], "keepdim": False, "dtype": F32}),
    ("sum_int32_to_int64", Op.SUM, I32, [2, 90], {"dims": [1], "keepdim": False, "dtype": I64}),
    ("sum_bool", Op.SUM, BOOL, [3, 77], {"dims": [1], "keepdim": False, "dtype": I64}),
    ("prod", Op.PROD, F32, [2, 50], {"dims": [1], "keepdim": False, "dtype": F32}),
    ("var_mean", Op.VAR_MEAN, F32, [3, 77], {"dims": [1], "correction": 1, "keepdim": False}),
    (
        "var_full_double",
        Op.VAR,
        DataType.Double,
        [77, 3],
        {"dims": [0, 1], "correction": 0, "keepdim": False},
    ),
    ("welford_bf16", Op.WELFORD, BF16, [3, 77], {"dims": [1]}),
]


@pytest.mark.parametrize(
    ("op", "dtype", "shape", "attrs"), [c[1:] for c in SPLIT_REDUCTIONS], ids=[c[0] for c in SPLIT_REDUCTIONS]
)
def test_split_reductions(op, dtype, shape, attrs):
    b = FusionBuilder()
    x = b.define_tensor(shape, dtype)
    for out in b.add(op, [x], attrs):
        b.add_output(out)
    fusion = b.build()
    group, _ = _split(fusion)
    low_high = (0.5, 1.5) if op is Op.PROD else (-3, 3)
    check(fusion, [group], {x.name: low_high}, SPLIT, reduction_size=800)


def test_split_mean_then_bias_and_scale_cast_to_bf16_from_strided_input():
    """The epilogue runs after the partials are combined: a mean, a row input, a symbolic scalar, a cast."""
    b = FusionBuilder()
    x = b.define_tensor([4, 50, 3], BF16, strides=[1, 12, 4])  # the reduced dim is the outermost in memory
    bias = b.define_tensor([4, 1, 3], F32)
    scale = b.define_scalar(DataType.Double)
    (total,) = b.add(Op.SUM, [x], {"dims": [1], "keepdim": True, "dtype": F32})
    (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, 50.0)])
    (shifted,) = b.add(Op.ADD, [mean, bias])
    (scaled,) = b.add(Op.MUL, [shifted, scale])
    (out,) = b.add(Op.CAST, [scaled], {"dtype": BF16})
    b.add_output(out)
    fusion = b.build()
    group, kernel = _split(fusion)
    partials_kernel = kernel.source[
        kernel.source.index("_partials(") : kernel.source.index("\ndef hfuse_reduction_g0(")
    ]
    assert "bias" not in partials_kernel and "t1_ptr" not in partials_kernel  # the epilogue's inputs
    check(fusion, [group], options=SPLIT, reduction_size=50)


def _launch_warps(source: str, name: str) -> int:
    return int(re.search(rf"{name}\[\(\d+,\)\]\([^\n]*num_warps=(\d+)\)", source).group(1))


@pytest.mark.parametrize(
    ("op", "shape", "dims", "warps"),
    [(Op.SUM, [3, 1000], [1], 1), (Op.SUM, [1000, 3], [0], 8), (Op.MAX, [2, 999], [1], 1)],
    ids=["inner", "outer", "inner-max"],
)
def test_a_split_that_writes_no_full_shape_output_streams_its_first_launch(op, shape, dims, warps):
    """Its input is read by the first launch alone: loads marked evict_first in a plain loop (no software
    pipeline), an inner reduction's blocks cut to `split_stream_cols` at 4 values a thread, an outer one's
    at 8 warps. Without `split_streaming`, the loop and blocks of the one-launch kernel."""
    b = FusionBuilder()
    x = b.define_tensor(shape, BF16)
    (total,) = b.add(op, [x], {"dims": dims, "keepdim": False, "dtype": F32 if op is Op.SUM else BF16})
    b.add_output(total)
    fusion = b.build()
    group = whole_group(fusion, REDUCTION)
    piped = dataclasses.replace(SPLIT, loop_cols=64, outer_tile=64, split_stream_cols=16, loop_stages=2)
    streamed = generate(group, fusion, piped).source
    plain = generate(group, fusion, dataclasses.replace(piped, split_streaming=False)).source
    first, second = streamed.split("\ndef hfuse_reduction_g0(")
    assert "eviction_policy='evict_first'" in first and "evict" not in second.split("\ndef _expect")[0]
    assert "num_stages" not in first and "num_stages=2" in plain and "evict" not in plain
    if dims == [1]:
        assert "[1, 16] tiles" in first and "[1, 64] tiles" in plain
    assert _launch_warps(streamed, "hfuse_reduction_g0_partials") == warps
    check(fusion, [group], options=piped, reduction_size=1000)


@pytest.mark.parametrize(
    ("shape", "dims", "op", "evicts"),
    [
        ([4, 37, 5], [1], Op.SUM, True),  # a middle-dim sum
        ([37, 5], [0], Op.MAX, True),  # a column max
        ([37, 5], [0], Op.VAR_MEAN, False),  # statistics: not a sum, maximum, minimum or product
        ([5, 37], [1], Op.SUM, False),  # a row sum
    ],
    ids=["middle-sum", "column-max", "column-var-mean", "row-sum"],
)
def test_a_one_launch_outer_reduction_marks_its_loads_evict_first(shape, dims, op, evicts):
    """It reads its input once and writes no full-shape output: L2 keeps what later kernels read (not with
    `outer_evict_first`, nor for statistics or rows)."""
    b = FusionBuilder()
    x = b.define_tensor(shape, BF16)
    attrs = {"dims": dims, "keepdim": False}
    if op is Op.VAR_MEAN:
        attrs["correction"] = 1
    else:
        attrs["dtype"] = F32 if op is Op.SUM else BF16
    for out in b.add(op, [x], attrs):
        b.add_output(out)
    fusion = b.build()
    group = whole_group(fusion, REDUCTION)
    looped = Options(persistent_max_cols=8, persistent_reread_cols=0, loop_cols=8, outer_tile=16)
    kernel = generate(group, fusion, looped)
    assert kernel.launches == 1
    assert ("eviction_policy='evict_first'" in kernel.source) is evicts
    assert "evict" not in generate(group, fusion, dataclasses.replace(looped, outer_evict_first=False)).source
    check(fusion, [group], options=looped, reduction_size=37)


@pytest.mark.parametrize("case", ["softmax", "logsumexp", "var_mean"])
def test_splits_of_a_normalization_an_online_max_and_sum_or_a_variance_do_not_stream(case):
    """A normalization's second launch reads the rows again to write the outputs; an online max and sum of
    exp and a variance keep the pipelined loop (the H200 measured the pair slower streamed)."""
    if case == "var_mean":
        b = FusionBuilder()
        x = b.define_tensor([3, 77], F32)
        for out in b.add(Op.VAR_MEAN, [x], {"dims": [1], "correction": 1, "keepdim": False}):
            b.add_output(out)
        fusion, kind = b.build(), REDUCTION
    else:
        fusion, kind = FEW_ROW_NORMALIZATIONS[case][0](BF16), FEW_ROW_NORMALIZATIONS[case][1]
    kernel = generate(whole_group(fusion, kind), fusion, SPLIT)
    assert kernel.launches == 2 and "evict" not in kernel.source


def test_split_sum_and_max_of_one_input_share_the_partials_pass():
    b = FusionBuilder()
    x = b.define_tensor([40, 3], F32, strides=[1, 40])  # column-major: the kept dim is strided
    (total,) = b.add(Op.SUM, [x], {"dims": [0], "keepdim": False, "dtype": F32})
    (top,) = b.add(Op.MAX, [x], {"dims": [0], "keepdim": False, "dtype": F32})
    (var, mean) = b.add(Op.VAR_MEAN, [x], {"dims": [0], "correction": 1, "keepdim": False})
    (spread,) = b.add(Op.SUB, [top, mean])
    for out in (total, spread, var):
        b.add_output(out)
    fusion = b.build()
    group, kernel = _split(fusion)
    partials_kernel = kernel.source[: kernel.source.index("\ndef hfuse_reduction_g0(")]
    assert partials_kernel.count("for start") == 3  # sum and max in one pass, then the mean and the M2
    check(fusion, [group], options=SPLIT, reduction_size=40)


def test_split_programs_do_not_interfere_across_rows_and_parts():
    """Each row a distinct constant: any partial stored or read at another row or part shows."""
    b = FusionBuilder()
    x = b.define_tensor([5, 300], I64)
    (total,) = b.add(Op.SUM, [x], {"dims": [1], "keepdim": False, "dtype": I64})
    b.add_output(total)
    fusion = b.build()
    group, kernel = _split(fusion)
    assert kernel.grid[0] > 5 and kernel.config["split"]["parts"] > 2
    rows = torch.arange(5, dtype=torch.int64, device=DEVICE)[:, None]
    x_value = rows.expand(5, 300).contiguous() * 1000 + 1
    (got,) = run(group, fusion, {fusion.inputs[0]: x_value}, SPLIT).values()
    assert got.tolist() == [300 * (1000 * r + 1) for r in range(5)]


def logsumexp(dtype=F32, rows=2, cols=100):
    """log(sum(exp(x))) of each row, in float32."""
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], dtype)
    if dtype is not F32:
        (x,) = b.add(Op.CAST, [x], {"dtype": F32})
    top, _, total = max_and_exp_sum(b, x, 1)
    (lse,) = b.add(Op.ADD, [b.add(Op.LOG, [total])[0], top])
    b.add_output(lse)
    return b.build()


def _centered_sum_of_squares(cols=100):
    """A variance written out: a sum over x - mean(x), which needs the whole row's mean first."""
    b = FusionBuilder()
    x = b.define_tensor([2, cols], F32)
    (total,) = b.add(Op.SUM, [x], {"dims": [1], "keepdim": True, "dtype": F32})
    (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, float(cols))])
    (centered,) = b.add(Op.SUB, [x, mean])
    (squares,) = b.add(Op.MUL, [centered, centered])
    (m2,) = b.add(Op.SUM, [squares], {"dims": [1], "keepdim": False, "dtype": F32})
    b.add_output(m2)
    return b.build()


ONE_LAUNCH = {
    "a_reduction_of_a_reduction": (_centered_sum_of_squares, REDUCTION),
    "a_double_softmax": (lambda: softmax(DataType.Double, rows=2, cols=100), NORMALIZATION),
    "rows_that_fill_the_gpu": (lambda: layer_norm(F32, rows=64, cols=40), NORMALIZATION),
}


@pytest.mark.parametrize("build, kind", ONE_LAUNCH.values(), ids=ONE_LAUNCH.keys())
def test_what_cannot_or_need_not_split_stays_one_launch(build, kind):
    fusion = build()
    group = whole_group(fusion, kind)
    kernel = generate(group, fusion, SPLIT)
    assert kernel.launches == 1 and "split" not in kernel.config and "_partials" not in kernel.source
    check(fusion, [group], options=SPLIT, reduction_size=100)


def _column_normalize(dtype, rows=120, cols=3):
    """x / sqrt(sum(x * x) over the rows): an outer reduction whose output is full-shape."""
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], dtype)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    (squares,) = b.add(Op.MUL, [xf, xf])
    (total,) = b.add(Op.SUM, [squares], {"dims": [0], "keepdim": True, "dtype": F32})
    (norm,) = b.add(Op.SQRT, [total])
    (y,) = b.add(Op.DIV, [xf, norm])
    (out,) = b.add(Op.CAST, [y], {"dtype": dtype})
    b.add_output(out)
    return b.build()


FEW_ROW_NORMALIZATIONS = {
    "softmax": (lambda dtype: softmax(dtype, rows=3, cols=100), NORMALIZATION),
    "log_softmax": (lambda dtype: softmax(dtype, rows=1, cols=130, log=True), NORMALIZATION),
    "layer_norm": (lambda dtype: layer_norm(dtype, rows=2, cols=100), NORMALIZATION),
    "rms_norm": (lambda dtype: rms_norm(dtype, rows=3, cols=90), NORMALIZATION),
    "logsumexp": (lambda dtype: logsumexp(), REDUCTION),
    "column_normalize": (_column_normalize, NORMALIZATION),
}


@pytest.mark.parametrize("alternate", [False, True], ids=["forward", "alternating"])
@pytest.mark.parametrize("dtype", [F32, BF16, F16])
@pytest.mark.parametrize("build, kind", FEW_ROW_NORMALIZATIONS.values(), ids=FEW_ROW_NORMALIZATIONS.keys())
def test_few_long_rows_normalize_in_two_launches(build, kind, dtype, alternate):
    """The partials of each part of a row (a softmax's max and sum of exp online), then every part's
    program combines its rows' partials and writes its part of the outputs (with alternating passes, the
    programs last to first, each walking its columns backward)."""
    fusion = build(dtype)
    options = dataclasses.replace(SPLIT, alternate_passes=alternate)
    group = whole_group(fusion, kind)
    kernel = generate(group, fusion, options)
    assert kernel.launches == 2 and kernel.config["split"]["parts"] > 2
    if any(e.op is Op.EXP for e in fusion.exprs):
        assert "max_parts" in kernel.source and "sum_parts" in kernel.source
    # an outer normalization's outputs launch reads the rows again: last to first when alternating
    outer = kernel.config["parts"][0]["outer"]
    assert ("order = " in kernel.source) is (alternate and outer and kind is NORMALIZATION)
    check(fusion, [group], options=options, reduction_size=130)


def _column_batch_norm(dtype, rows=101, cols=5):
    """(x - mean) * rsqrt(var + eps) over the rows, with the mean a second (row) output."""
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], dtype)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    var, mean = b.add(Op.VAR_MEAN, [xf], {"dims": [0], "correction": 0, "keepdim": True})
    (eps,) = b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])
    (y,) = b.add(Op.MUL, [b.add(Op.SUB, [xf, mean])[0], b.add(Op.RSQRT, [eps])[0]])
    b.add_output(b.add(Op.CAST, [y], {"dtype": dtype})[0])
    b.add_output(mean)
    return b.build()


def _column_softmax(dtype, rows=99, cols=6):
    """A softmax over dim 0: the max and the sum of exp reduced online in the partials."""
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], dtype)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    _, e, total = max_and_exp_sum(b, xf, 0)
    b.add_output(b.add(Op.CAST, [b.add(Op.DIV, [e, total])[0]], {"dtype": dtype})[0])
    return b.build()


def _middle_dim_centering(dtype, shape=(2, 70, 3)):
    b = FusionBuilder()
    x = b.define_tensor(list(shape), dtype)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    (total,) = b.add(Op.SUM, [xf], {"dims": [1], "keepdim": True, "dtype": F32})
    (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, float(shape[1]))])
    b.add_output(b.add(Op.CAST, [b.add(Op.SUB, [xf, mean])[0]], {"dtype": dtype})[0])
    return b.build()


FLAT_FINISHES = {
    "column_normalize_f32": lambda: _column_normalize(F32),
    "column_normalize_bf16_odd": lambda: _column_normalize(BF16, rows=130, cols=5),
    "column_normalize_f16": lambda: _column_normalize(F16, rows=97, cols=7),
    "batch_norm_with_the_mean_out": lambda: _column_batch_norm(BF16),
    "column_softmax": lambda: _column_softmax(F32),
    "column_softmax_bf16": lambda: _column_softmax(BF16, rows=64, cols=8),
    "middle_dim_centering": lambda: _middle_dim_centering(BF16),
}


@pytest.mark.parametrize("build", FLAT_FINISHES.values(), ids=FLAT_FINISHES.keys())
def test_a_large_column_normalization_writes_its_outputs_in_a_third_flat_launch(build):
    """From `flat_finish_min_elements` on, the second launch combines each row's partials into a stats
    buffer (and writes the row outputs), and a third writes the full-shape outputs by their flat index,
    each reading its row's statistics there. Below it: two launches (test_few_long_rows_normalize...)."""
    fusion = build()
    group = whole_group(fusion, NORMALIZATION)
    options = dataclasses.replace(SPLIT, flat_finish_min_elements=1)
    kernel = generate(group, fusion, options)
    assert kernel.launches == 3 and f"def {group.name}_stats(" in kernel.source
    last = kernel.source[kernel.source.index(f"def {group.name}(") :].split("\ndef _expect")[0]
    assert (
        "flat index" in last
        and "tl.load(stats_float32_ptr + " in last
        and "partials" not in last.split(":", 1)[1]
    )
    check(fusion, [group], options=options, reduction_size=130)
    assert generate(group, fusion, SPLIT).launches == 2


@pytest.mark.parametrize("shape", [(40, 16), (2, 40, 3)])
def test_alternating_passes_walk_each_outer_loop_the_other_way_from_the_one_before(shape):
    """Each pass over the reduced rows starts on the rows the pass before read last: forward, then backward;
    so do the passes over a row looped by one program (a softmax: its statistics forward, its outputs
    backward)."""
    b = FusionBuilder()
    x = b.define_tensor(shape, F32)
    (total,) = b.add(Op.SUM, [x], {"dims": [len(shape) - 2], "keepdim": True, "dtype": F32})
    (y,) = b.add(Op.SUB, [x, total])
    b.add_output(y)
    fusion = b.build()
    group = whole_group(fusion, NORMALIZATION)
    source = generate(group, fusion, FORMS["alternating"]).source
    kernel = source[source.index("@triton.jit\ndef hfuse") :]
    headers = [line.strip() for line in kernel.splitlines() if line.strip().startswith("for ")]
    assert len(headers) == 2 and headers[1].startswith("for block"), headers
    assert re.search(r"start\w* = \(\d+ - block\w*\) \* \d+", kernel)
    check(fusion, [group], options=FORMS["alternating"], reduction_size=40)
    softmax_rows = NORMS["softmax"](F32)
    inner = generate(whole_group(softmax_rows, NORMALIZATION), softmax_rows, FORMS["alternating"]).source
    headers = [line.strip() for line in inner.splitlines() if line.strip().startswith("for ")]
    assert len(headers) == 2 and headers[0].startswith("for start") and headers[1].startswith("for block")


def test_a_split_softmax_keeps_nan_inf_and_masked_rows_as_torch():
    fusion = softmax(F32, rows=3, cols=100)
    group, _ = _split(fusion, NORMALIZATION)
    x = torch.randn(3, 100, device=DEVICE)
    x[0, 57] = float("nan")  # a NaN in one part: the whole row is NaN
    x[1, :] = float("-inf")  # a row of -inf: NaN
    x[2, 3] = float("inf")  # an inf: NaN where exp(inf - inf), as in torch
    (got,) = run(group, fusion, {fusion.inputs[0]: x}, SPLIT).values()
    expected = evaluate(fusion, [x])[0]
    torch.testing.assert_close(got, expected, equal_nan=True)


@pytest.mark.parametrize("value", [torch.finfo(torch.float32).min, torch.finfo(torch.float32).max])
def test_a_split_var_mean_of_rows_near_the_largest_float_does_not_overflow(value):
    """Each part's mean is the row's; merging them must not add up sizes times means."""
    b = FusionBuilder()
    x = b.define_tensor([3, 77], F32)
    for out in b.add(Op.VAR_MEAN, [x], {"dims": [1], "correction": 0, "keepdim": False}):
        b.add_output(out)
    fusion = b.build()
    group, _ = _split(fusion)
    rows = torch.full((3, 77), value, device=DEVICE)
    var, mean = run(group, fusion, {fusion.inputs[0]: rows}, SPLIT).values()
    torch.testing.assert_close(mean, rows[:, 0], rtol=0, atol=0)
    torch.testing.assert_close(var, torch.zeros(3, device=DEVICE), rtol=0, atol=0)


@pytest.mark.parametrize("case", ["softmax", "log_softmax", "cross_entropy", "sum"])
def test_a_split_into_parts_of_one_column_block_each(case):
    """As a few vocabulary rows split by default: each part is one block of 8 columns, one loop step, the
    last part of 5 (77 columns, 10 parts)."""
    one_block_parts = dataclasses.replace(SPLIT, split_min_part=4, split_programs=64)
    ranges = None
    if case == "cross_entropy":
        fusion, ranges = cross_entropy(rows=3, cols=77)
    elif case == "sum":
        b = FusionBuilder()
        x = b.define_tensor([3, 77], BF16)
        b.add_output(b.add(Op.SUM, [x], {"dims": [1], "keepdim": False, "dtype": F32})[0])
        fusion = b.build()
    else:
        fusion = softmax(BF16, rows=3, cols=77, log=case == "log_softmax")
    group = whole_group(fusion, NORMALIZATION if case in ("softmax", "log_softmax") else REDUCTION)
    kernel = generate(group, fusion, one_block_parts)
    assert "A split reduction in 10 parts" in kernel.source and "in 10 parts of 8" in kernel.source
    check(fusion, [group], ranges, one_block_parts, reduction_size=77)


def test_a_split_cross_entropy_gathers_the_target_from_its_row():
    fusion, ranges = cross_entropy(rows=2, cols=150)
    group, _ = _split(fusion, REDUCTION)
    check(fusion, [group], options=SPLIT, reduction_size=150, ranges=ranges)


SPLIT_CHOICES = [
    # (tiles of rows, reduced columns, column block, (parts, columns a part) or None)
    ("full_sum_4096x4096", 1, 4096 * 4096, 2048, (512, 32768)),
    ("8_rows_of_4M", 4, 1 << 22, 2048, (128, 32768)),
    ("outer_full_4M_by_8", 1, 1 << 22, 512, (512, 8192)),
    ("rows_fill_the_gpu", 264, 1 << 20, 2048, None),
    # a few rows split into parts of one column block each
    ("looped_row_of_32000", 8, 32000, 2048, (16, 2048)),  # cross-entropy over 16 rows of a 32000 vocabulary
    ("8_vocabulary_rows", 8, 50257, 2048, (25, 2048)),  # a softmax of 8 rows of GPT-2's vocabulary
    ("one_row_of_128256", 1, 128256, 4096, (32, 4096)),  # log-softmax of one row of Llama 3's vocabulary
    ("row_kept_on_chip", 1, 16384, 16384, None),
    ("looped_row_one_column_longer", 8, 16385, 2048, (9, 2048)),
    ("one_part_only", 1, 32768, 32768, None),
]
OUTER_SPLIT_CHOICES = [
    # a bias gradient: 64 tiles of 64 kept columns, [64, 64] blocks of the reduced rows
    ("bias_grad_16384_rows", 64, 16384, 64, (8, 2048)),
    ("bias_grad_2048_rows", 64, 2048, 64, (8, 256)),
    ("short_columns", 64, 1023, 64, None),
    ("kept_columns_fill_the_gpu", 512, 2048, 64, None),
]


@pytest.mark.parametrize(
    "programs, cols, block, expected",
    [c[1:] for c in OUTER_SPLIT_CHOICES],
    ids=[c[0] for c in OUTER_SPLIT_CHOICES],
)
def test_outer_split_heuristic(programs, cols, block, expected):
    split = choose_split(programs, cols, block, Options(), outer=True)
    assert (None if split is None else (split.parts, split.length)) == expected


@pytest.mark.parametrize(
    "programs, cols, block, expected", [c[1:] for c in SPLIT_CHOICES], ids=[c[0] for c in SPLIT_CHOICES]
)
def test_split_heuristic(programs, cols, block, expected):
    split = choose_split(programs, cols, block, Options())
    assert (None if split is None else (split.parts, split.length)) == expected
    if split is not None:
        assert (
            split.length % block == 0
            and (split.parts - 1) * split.length < cols <= split.parts * split.length
        )


@pytest.mark.parametrize("form", [*FORMS, "split"])
def test_a_mean_keeps_its_digits_when_a_row_starts_with_an_outlier(form):
    """Rows of values in [-3, 3] whose first element is far larger: differences from that element are each
    as large as it, so their sum's rounding would take |first| * 2**-24 from a mean of about |first| / 1024
    (60 ppm); the mean of the elements themselves keeps it to float32's own rounding."""
    rows, cols = 4, 1024
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], F32)
    for out in b.add(Op.VAR_MEAN, [x], {"dims": [1], "correction": 0, "keepdim": False}):
        b.add_output(out)
    fusion = b.build()
    group = _split(fusion)[0] if form == "split" else whole_group(fusion, REDUCTION)
    data = random_tensor(fusion.value(fusion.inputs[0]))
    data[:, 0] = torch.tensor([1e18, -3e17, 7.7e12, -1e10])  # squares within float32
    var, mean = run(
        group, fusion, {fusion.inputs[0]: data}, SPLIT if form == "split" else FORMS[form]
    ).values()
    exact = data.double()
    torch.testing.assert_close(mean.double(), exact.mean(1), rtol=1e-6, atol=0)
    torch.testing.assert_close(var.double(), exact.var(1, correction=0), rtol=1e-5, atol=0)


def _column_sums(streams: int, cols: int = 16, dtype: DataType = F32, rows: int = 40):
    """sum(x0 * x1 * ..., dim=0) of `streams` [rows, cols] row-major inputs: an outer reduction."""
    b = FusionBuilder()
    inputs = [b.define_tensor([rows, cols], dtype) for _ in range(streams)]
    product = inputs[0]
    for x in inputs[1:]:
        (product,) = b.add(Op.MUL, [product, x])
    (total,) = b.add(Op.SUM, [product], {"dims": [0], "keepdim": False, "dtype": F32})
    b.add_output(total)
    return b.build()


@pytest.mark.parametrize(
    "options",
    [FORMS["looped"], dataclasses.replace(SPLIT, split_streaming=False)],
    ids=["one-launch", "split-not-streaming"],
)
def test_a_long_outer_reduction_of_one_input_pipelines_its_loop(options):
    """One tile load a column block: Triton's software pipeline keeps the next blocks' loads in flight.
    Two streamed inputs, fewer reduced rows than outer_stages_min_cols, and an inner loop (unless
    loop_stages asks) are plain loops, and so is a streaming split's first launch (see
    test_a_split_that_writes_no_full_shape_output_streams_its_first_launch)."""
    one, two = _column_sums(1), _column_sums(2)
    group = whole_group(one, REDUCTION)
    assert "tl.range(" not in generate(group, one, options).source  # 40 rows: too few
    options = dataclasses.replace(options, outer_stages_min_cols=40)
    source = generate(group, one, options).source
    assert "tl.range(" in source and f"num_stages={options.outer_stages})" in source
    assert "tl.range(" not in generate(whole_group(two, REDUCTION), two, options).source
    check(one, [group], options=options, reduction_size=40)
    inner = softmax(F32, rows=5, cols=33)
    many_tiles = dataclasses.replace(FORMS["looped"], inner_stages_below_tiles=0)
    assert "tl.range(" not in generate(whole_group(inner, NORMALIZATION), inner, many_tiles).source
    forced = dataclasses.replace(FORMS["looped"], loop_stages=2)
    assert "num_stages=2)" in generate(whole_group(inner, NORMALIZATION), inner, forced).source


@pytest.mark.parametrize(
    "options",
    [FORMS["looped"], dataclasses.replace(SPLIT, split_streaming=False)],
    ids=["one-launch", "split-not-streaming"],
)
@pytest.mark.parametrize(
    ("cols", "dtype", "pipelined"), [(16, F32, True), (15, F32, False), (8, BF16, True), (12, BF16, False)]
)
def test_an_outer_reduction_pipelines_its_loop_only_over_rows_at_multiples_of_16_bytes(
    options, cols, dtype, pipelined
):
    """Over rows at other offsets (no vector loads) the pipeline was far slower than a plain loop on the
    GPU: rows of 15 fp32 (60 bytes) or 12 bf16 (24 bytes) keep the plain loop, and compute the same
    sums."""
    fusion = _column_sums(1, cols, dtype)
    group = whole_group(fusion, REDUCTION)
    options = dataclasses.replace(options, outer_stages_min_cols=40)
    assert ("num_stages=" in generate(group, fusion, options).source) == pipelined
    check(fusion, [group], options=options, reduction_size=40)


# tiles of 16 elements in about 64 programs for a first launch over rows off 16-byte boundaries
MISALIGNED = dataclasses.replace(SPLIT, outer_tile=64, misaligned_outer_tile=16, misaligned_outer_programs=64)
MISALIGNED_SPLITS = {
    # name: (fusion, kind, whether its full-shape outputs are written in a third, flat launch)
    "column_sums_of_rows_of_15_fp32": (lambda: _column_sums(1, 15, F32, rows=300), REDUCTION, False),
    "column_sums_of_rows_of_12_bf16": (lambda: _column_sums(1, 12, BF16, rows=300), REDUCTION, False),
    "column_normalize_bf16": (lambda: _column_normalize(BF16, rows=300, cols=13), NORMALIZATION, True),
    "column_softmax": (lambda: _column_softmax(F32, rows=300, cols=7), NORMALIZATION, True),
    "middle_dim_centering": (lambda: _middle_dim_centering(BF16, shape=(2, 300, 5)), NORMALIZATION, True),
}


@pytest.mark.parametrize(("build", "kind", "flat"), MISALIGNED_SPLITS.values(), ids=MISALIGNED_SPLITS.keys())
def test_an_outer_split_over_rows_off_16_bytes_reads_small_tiles_in_more_programs(build, kind, flat):
    """Scalar loads: many small programs keep more of them in flight on the GPU than a few large ones. The
    first launch takes tiles of misaligned_outer_tile elements and aims for misaligned_outer_programs
    programs, in shorter parts; the values are the same."""
    fusion = build()
    group = whole_group(fusion, kind)
    options = dataclasses.replace(
        MISALIGNED, flat_finish_min_elements=1 if flat else MISALIGNED.flat_finish_min_elements
    )
    kernel = generate(group, fusion, options)
    before = generate(group, fusion, dataclasses.replace(options, misaligned_outer_tile=0))
    first, first_before = kernel.config["parts"][0], before.config["parts"][0]
    assert first["ROWS"] * first["COLS"] <= 16 < first_before["ROWS"] * first_before["COLS"]
    assert kernel.config["split"]["parts"] > before.config["split"]["parts"]
    assert kernel.launches == before.launches == (3 if flat else 2)
    assert "16-byte boundaries" in kernel.source and "16-byte boundaries" not in before.source
    check(fusion, [group], options=options, reduction_size=300)


# rows of 13 bf16 (26 bytes) start off 4-byte boundaries; one tile of rows, so no split but by that rule
OFF_4_BYTES = dataclasses.replace(
    MISALIGNED, split_below_programs=1, off_4_bytes_outer_tile=32, off_4_bytes_outer_programs=64
)


def test_an_outer_reduction_over_rows_off_4_bytes_splits_however_many_tiles_of_rows_it_has():
    """2-byte values at an odd stride load one by one: a column sum splits even where its tiles of rows
    would fill the GPU, its first launch in tiles of off_4_bytes_outer_tile elements; rows on 4-byte
    boundaries keep one launch, and a normalization the misaligned_outer_tile tiles."""
    odd = _column_sums(1, 13, BF16, rows=300)
    group = whole_group(odd, REDUCTION)
    kernel = generate(group, odd, OFF_4_BYTES)
    first = kernel.config["parts"][0]
    assert kernel.launches == 2 and first["ROWS"] * first["COLS"] == 32
    assert "the rows start off 4-byte boundaries" in kernel.source
    assert generate(group, odd, dataclasses.replace(OFF_4_BYTES, off_4_bytes_outer_tile=0)).launches == 1
    check(odd, [group], options=OFF_4_BYTES, reduction_size=300)
    even = _column_sums(1, 12, BF16, rows=300)
    assert generate(whole_group(even, REDUCTION), even, OFF_4_BYTES).launches == 1
    normalize = _column_normalize(BF16, rows=300, cols=13)
    flat = dataclasses.replace(OFF_4_BYTES, flat_finish_min_elements=1, flat_split_below_programs=1)
    normalized = generate(whole_group(normalize, NORMALIZATION), normalize, flat)
    tile = normalized.config["parts"][0]
    assert normalized.launches == 3 and tile["ROWS"] * tile["COLS"] == 16
    check(normalize, [whole_group(normalize, NORMALIZATION)], options=flat, reduction_size=300)


@pytest.mark.parametrize(("cols", "launches", "tile"), [(32001, 2, [64, 32]), (30522, 1, [64, 64])])
def test_a_wide_column_sum_in_bf16_splits_by_default_only_over_rows_off_4_bytes(cols, launches, tile):
    fusion = _column_sums(1, cols, BF16, rows=6007)  # 501 or 477 tiles of 64 rows: enough to fill the GPU
    kernel = generate(whole_group(fusion, REDUCTION), fusion, Options())
    first = kernel.config["parts"][0]
    assert kernel.launches == launches and [first["ROWS"], first["COLS"]] == tile


@pytest.mark.parametrize(
    ("build", "kind"),
    [
        (lambda: _column_sums(1, 16, F32, rows=300), REDUCTION),
        (lambda: _column_normalize(BF16, rows=300, cols=13), NORMALIZATION),
    ],
    ids=["aligned_rows", "full_shape_outputs_written_per_part"],
)
def test_aligned_rows_and_a_second_launch_in_the_first_ones_tiles_keep_the_outer_tiles(build, kind):
    """Rows at multiples of 16 bytes take vector loads; a second launch that writes the full-shape outputs
    part by part reads the rows again in the first launch's tiles, where small ones were slower on the
    GPU: both keep outer_tile and split_programs."""
    fusion = build()
    group = whole_group(fusion, kind)
    kernel = generate(group, fusion, MISALIGNED)
    unruled = generate(group, fusion, dataclasses.replace(MISALIGNED, misaligned_outer_tile=0))
    assert kernel.launches == 2 and kernel.source == unruled.source
    assert kernel.config["parts"][0]["ROWS"] * kernel.config["parts"][0]["COLS"] == 64


@pytest.mark.parametrize(("cols", "tile", "parts"), [(4095, [64, 16], 32), (4096, [64, 64], 8)])
def test_a_large_column_normalization_at_an_odd_width_splits_into_small_tiles_by_default(cols, tile, parts):
    fusion = _column_normalize(BF16, rows=16384, cols=cols)
    kernel = generate(whole_group(fusion, NORMALIZATION), fusion, Options())
    first = kernel.config["parts"][0]
    assert [first["ROWS"], first["COLS"]] == tile and kernel.config["split"]["parts"] == parts


def test_a_column_normalization_with_a_flat_last_launch_splits_with_more_tiles_of_rows():
    """In one launch a program reads its tile's rows twice: a normalization whose outputs a flat third launch
    would write splits below flat_split_below_programs tiles of rows, more than split_below_programs."""
    fusion = _column_normalize(F32, rows=120, cols=520)  # 9 tiles of 64 rows
    group = whole_group(fusion, NORMALIZATION)
    flat = dataclasses.replace(SPLIT, flat_finish_min_elements=1, flat_split_below_programs=16)
    kernel = generate(group, fusion, flat)
    assert kernel.launches == 3 and "one launch would read each tile of rows twice" in kernel.source
    assert generate(group, fusion, dataclasses.replace(flat, flat_split_below_programs=9)).launches == 1
    assert generate(group, fusion, dataclasses.replace(flat, flat_finish_min_elements=10**6)).launches == 1
    check(fusion, [group], options=flat, reduction_size=120)
    wide = _column_normalize(BF16, rows=8192, cols=30528)  # 477 tiles: three launches by default
    assert generate(whole_group(wide, NORMALIZATION), wide, Options()).launches == 3


def test_a_long_inner_row_pipelines_its_loop_when_inner_stages_asks():
    """Rows of at least inner_stages_min_cols columns loop through Triton's software pipeline; shorter
    rows keep a plain loop (where the tiles of rows are not too few: test_codegen_reduction_shapes)."""
    inner = softmax(F32, rows=5, cols=33)
    group = whole_group(inner, NORMALIZATION)
    asked = dataclasses.replace(
        FORMS["looped"], inner_stages=3, inner_stages_min_cols=33, inner_stages_below_tiles=0
    )
    assert "num_stages=3)" in generate(group, inner, asked).source
    longer = dataclasses.replace(asked, inner_stages_min_cols=34)
    assert "tl.range(" not in generate(group, inner, longer).source
    check(inner, [group], options=asked)


def _weighted_column_sums():
    """sum(x0 * (x1 + 0.5), dim=0) of two [40, 16] inputs: the math on x1 comes before x0 is read."""
    b = FusionBuilder()
    x0, x1 = b.define_tensor([40, 16], F32), b.define_tensor([40, 16], F32)
    (shifted,) = b.add(Op.ADD, [x1, b.define_scalar(DataType.Double, 0.5)])
    (product,) = b.add(Op.MUL, [x0, shifted])
    (total,) = b.add(Op.SUM, [product], {"dims": [0], "keepdim": False, "dtype": F32})
    b.add_output(total)
    return b.build()


def _loads_before_math(source: str) -> int:
    loop = source[source.index("for start") :].splitlines()
    first_math = next(i for i, line in enumerate(loop) if "+ 0.5" in line)
    return sum("tl.load(" in line for line in loop[:first_math])


@pytest.mark.parametrize("options", [FORMS["looped"], SPLIT], ids=["one-launch", "split"])
def test_loads_first_puts_each_streamed_load_of_a_column_block_before_its_math(options):
    """With `loads_first`, both tile loads start each column block, so the second does not wait on the
    math of the first; the results are the same. Without it, x0 is read after the math on x1."""
    fusion = _weighted_column_sums()
    group = whole_group(fusion, REDUCTION)
    without = dataclasses.replace(options, loads_first=False)
    assert _loads_before_math(generate(group, fusion, without).source) == 1
    options = dataclasses.replace(options, loads_first=True)
    assert _loads_before_math(generate(group, fusion, options).source) == 2
    check(fusion, [group], options=options, reduction_size=40)
    normalized = layer_norm(F32, rows=6, cols=40)
    looped = dataclasses.replace(FORMS["looped"], loads_first=True)
    check(normalized, [whole_group(normalized, NORMALIZATION)], options=looped, reduction_size=40)


ALIGNED_NORMS = {
    "layer_norm": lambda dtype, cols: layer_norm(dtype, rows=5, cols=cols),
    "rms_norm": lambda dtype, cols: rms_norm(dtype, rows=5, cols=cols),
    "softmax": lambda dtype, cols: softmax(dtype, rows=5, cols=cols),
    "log_softmax": lambda dtype, cols: softmax(dtype, rows=5, cols=cols, log=True),
}


@pytest.mark.parametrize("cols", [17, 23, 41])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("norm", ALIGNED_NORMS)
def test_rows_of_no_vector_width_multiple_run_from_the_aligned_element_before_them(norm, dtype, cols):
    """Blocks of 8 columns from the element before each row's first whose offset is a multiple of 16 bytes:
    the first block masked before the row, those inside it unmasked, the last ones masked past its end (at
    17 columns one block inside, at 23 two past it). The first and last blocks' loops end at the row's
    lead over its aligned start, known only to the running program: the compiler keeps them loops. The
    program's number is its row: a [1, 1] tile of rows is left out unless a value per row is stored. The
    pass writing the outputs walks back from the last block, where the pass before ended."""
    fusion = ALIGNED_NORMS[norm](DTYPES[dtype], cols)
    group = whole_group(fusion, NORMALIZATION)
    kernel = generate(group, fusion, FORMS["aligned"]).source
    align = 4 if dtype == "float32" else 8
    assert f"aligned_start = row_start // {align} * {align}" in kernel
    assert re.search(r"tl\.load\(t0_ptr \+ flat_\d+\)", kernel), "no unmasked load inside the row"
    edges = re.findall(r"for \w+ in range\(([^)]*)\):", kernel)
    assert edges and all("lead + " in bounds for bounds in edges), edges
    code = [line.split("#")[0] for line in kernel[kernel.index("@triton.jit\ndef hfuse_") :].splitlines()]
    if any(line.lstrip().startswith("rows = ") for line in code):  # kept only to store a value per row at
        assert sum(len(re.findall(r"\brows\b", line)) for line in code) > 1, "an unread tile of rows"
    assert re.search(r"start\w* = \d+ - back\w*\n", kernel), "no pass walks the row backward"
    check(fusion, [group], options=FORMS["aligned"], reduction_size=cols)


@pytest.mark.parametrize(("cols", "aligned"), [(44, False), (15, False), (33, True), (2**31 - 5, False)])
def test_rows_stay_unaligned_when_aligned_shorter_than_two_blocks_or_past_int32(cols, aligned, monkeypatch):
    """A row whose loops would count past int32 keeps the loops of `RowReducer._walk`."""
    monkeypatch.setenv("HFUSE_MAX_OUTPUT_BYTES", str(1 << 40))
    fusion = softmax(F32, rows=3, cols=cols)
    one_launch = dataclasses.replace(FORMS["aligned"], split_below_programs=0)
    kernel = generate(whole_group(fusion, NORMALIZATION), fusion, one_launch).source
    assert ("aligned_start" in kernel) is aligned


def test_aligned_rows_reduce_the_innermost_dims_of_a_3d_tensor():
    b = FusionBuilder()
    x = b.define_tensor([4, 3, 11], BF16)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    (total,) = b.add(Op.SUM, [xf], {"dims": [1, 2], "keepdim": True, "dtype": F32})
    (y,) = b.add(Op.SUB, [xf, total])
    (out,) = b.add(Op.CAST, [y], {"dtype": BF16})
    b.add_output(out)
    b.add_output(total)
    fusion = b.build()
    group = whole_group(fusion, NORMALIZATION)
    assert "aligned_start" in generate(group, fusion, FORMS["aligned"]).source
    check(fusion, [group], options=FORMS["aligned"], reduction_size=33)


# ---- rows a loop would read twice, kept whole up to `Options.persistent_reread_cols` ---------------------
REREAD = dataclasses.replace(LOOPED, row_tile=8, persistent_reread_cols=64)


def _add_layer_norm(cols):
    """A residual add and a layer norm of the sum, writing both: two inputs read along the row."""
    b = FusionBuilder()
    x, residual = b.define_tensor([5, cols], BF16), b.define_tensor([5, cols], BF16)
    (total,) = b.add(
        Op.ADD, [b.add(Op.CAST, [x], {"dtype": F32})[0], b.add(Op.CAST, [residual], {"dtype": F32})[0]]
    )
    var, mean = b.add(Op.VAR_MEAN, [total], {"dims": [1], "correction": 0, "keepdim": False})
    (rstd,) = b.add(Op.RSQRT, [b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])[0]])
    (centered,) = b.add(Op.SUB, [total, _row_broadcast(b, mean, [5, cols], [0])])
    (normed,) = b.add(Op.MUL, [centered, _row_broadcast(b, rstd, [5, cols], [0])])
    b.add_output(b.add(Op.CAST, [normed], {"dtype": BF16})[0])
    b.add_output(b.add(Op.CAST, [total], {"dtype": BF16})[0])
    return b.build()


def _variance(cols):
    b = FusionBuilder()
    x = b.define_tensor([5, cols], F32)
    var, _ = b.add(Op.VAR_MEAN, [x], {"dims": [1], "correction": 1, "keepdim": False})
    b.add_output(var)
    return b.build()


REREADS = {  # kept whole: each reads its row twice when looped, through at most two inputs
    "softmax": (lambda cols: softmax(BF16, rows=5, cols=cols), NORMALIZATION),
    "log_softmax": (lambda cols: softmax(F32, rows=5, cols=cols, log=True), NORMALIZATION),
    "rms_norm_and_its_weight": (lambda cols: rms_norm(F16, rows=5, cols=cols), NORMALIZATION),
    "add_layer_norm_writing_both": (_add_layer_norm, NORMALIZATION),
    "variance": (_variance, REDUCTION),
    "a_reduction_of_a_reduction": (_centered_sum_of_squares, REDUCTION),
}
READS_ONCE_OR_THREE_INPUTS = {  # looped: read once anyway, or three inputs along the row
    "logsumexp": (lambda cols: logsumexp(cols=cols), NORMALIZATION),
    "layer_norm_weight_and_bias": (lambda cols: layer_norm(F32, rows=6, cols=cols), NORMALIZATION),
}


def _form(fusion, kind, options):
    group = whole_group(fusion, kind)
    part = generate(group, fusion, options).config["parts"][0]
    return group, (part["persistent"], part["ROWS"], part["COLS"])


@pytest.mark.parametrize(("cols", "block"), [(9, 16), (40, 64), (64, 64)])
@pytest.mark.parametrize("build, kind", REREADS.values(), ids=REREADS.keys())
def test_rows_a_loop_would_read_twice_stay_whole_up_to_the_reread_limit(build, kind, cols, block):
    """Past `persistent_max_cols` (8) up to `persistent_reread_cols` (64): one block a row."""
    fusion = build(cols)
    group, form = _form(fusion, kind, REREAD)
    assert form == (True, 1, block)
    check(fusion, [group], options=REREAD, reduction_size=cols)


@pytest.mark.parametrize("build, kind", REREADS.values(), ids=REREADS.keys())
def test_rows_past_the_reread_limit_loop(build, kind):
    fusion = build(65)
    group, form = _form(fusion, kind, REREAD)
    assert form == (False, 1, 8)
    check(fusion, [group], options=REREAD, reduction_size=65)


@pytest.mark.parametrize(
    "build, kind", READS_ONCE_OR_THREE_INPUTS.values(), ids=READS_ONCE_OR_THREE_INPUTS.keys()
)
def test_rows_read_once_or_along_three_inputs_loop(build, kind):
    fusion = build(40)
    group, form = _form(fusion, kind, REREAD)
    assert form == (False, 1, 8)
    check(fusion, [group], options=REREAD, reduction_size=40)


def _column_major_rms_scale():
    """Rows read along a column-major input, written row-major: tall tiles of 8 rows (`store_tile_rows`)."""
    b = FusionBuilder()
    x = b.define_tensor([40, 24], F32, strides=[1, 40])
    (total,) = b.add(Op.SUM, [b.add(Op.MUL, [x, x])[0]], {"dims": [0], "keepdim": False, "dtype": F32})
    b.add_output(b.add(Op.MUL, [x, _row_broadcast(b, b.add(Op.RSQRT, [total])[0], [40, 24], [1])])[0])
    return b.build()


KEEP_THEIR_TILES = {
    "tall_tiles_of_rows": (_column_major_rms_scale, (8, False)),
    "an_outer_reduction": (lambda: _column_normalize(F32, rows=40, cols=3), (4, True)),
}


@pytest.mark.parametrize("build, tile", KEEP_THEIR_TILES.values(), ids=KEEP_THEIR_TILES.keys())
def test_tall_tiles_and_outer_reductions_are_not_kept_whole_past_the_persistent_limit(build, tile):
    fusion = build()
    group = whole_group(fusion, NORMALIZATION)
    part = generate(group, fusion, REREAD).config["parts"][0]
    assert (part["persistent"], part["ROWS"], part["outer"]) == (False, *tile)
    check(fusion, [group], options=REREAD, reduction_size=40)
