"""A row kernel that also sums columns: a normalization backward's grad-input and grad-weight from one read
of the inputs, then a launch adding each column's partials."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch
from codegen_harness import check, generate
from segment_cases import Builder, layernorm_backward, random_inputs, rmsnorm_backward

from hfuse.codegen import Options
from hfuse.codegen.column_partials import keeps_rows_on_chip
from hfuse.dtypes import DataType
from hfuse.examples import get_example
from hfuse.ir import Fusion, Op
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.reference import evaluate
from hfuse.runtime import prepare
from hfuse.segment import recompute_crossings, segment
from hfuse.segment.column_sums import join_column_sums
from hfuse.segment.model import SchedulerKind
from hfuse.segment.report import format_segmentation
from hfuse.tolerance import assert_close, reduction_size

F32, BF16 = DataType.Float, DataType.BFloat16
# tiles of 2 rows, in 3 programs: each program takes several tiles, the last tile is cut by the row mask
SMALL = Options(row_tile=128, column_partials_programs=3)


def _joined(fusion: Fusion):
    """The segmentation with the column sums joined to the row group wherever they fit together."""
    scheduled, segmentation = recompute_crossings(fusion, segment(fusion))
    return scheduled, join_column_sums(scheduled, segmentation, lambda group: True)


def _three_dims(shape=(3, 7, 40)) -> Fusion:
    """An RMSNorm-like row sum over the last dim of [batch, tokens, hidden], and a column sum of the
    scaled values over batch and tokens with a scalar and a cast after it."""
    b = Builder()
    x = b.define_tensor(shape, BF16)
    scale = b.define_scalar(DataType.Double)
    xf = b.cast(x, F32)
    squares = b.bcast(b.sum(b.op(Op.MUL, xf, xf), (2,)), shape, [0, 1])
    b.add_output(b.cast(b.op(Op.MUL, xf, b.op(Op.RSQRT, b.op(Op.ADD, squares, b.const(1.0)))), BF16))
    b.add_output(b.cast(b.op(Op.MUL, b.sum(b.op(Op.MUL, xf, xf), (0, 1)), scale), BF16))
    return b.build()


def _row_statistics_and_a_column_epilogue(shape=(37, 40)) -> Fusion:
    """The row group writes a row output (each row's mean) beside the normalized rows; the column sum of
    the normalized rows times a gradient is scaled by a per-column input after it."""
    b = Builder()
    x, grad = b.define_tensor(shape, F32), b.define_tensor(shape, BF16)
    scale = b.define_tensor(shape[1:], F32)
    mean = b.op(Op.DIV, b.sum(x, (1,)), b.const(float(shape[1])))
    normed = b.op(Op.SUB, x, b.bcast(mean, shape, [0]))
    b.add_output(mean)
    b.add_output(normed)
    b.add_output(b.op(Op.MUL, b.sum(b.op(Op.MUL, normed, b.cast(grad, F32)), (0,)), scale))
    return b.build()


CASES = [
    ("layernorm-backward", lambda: layernorm_backward((37, 40))),
    ("rmsnorm-backward", lambda: rmsnorm_backward((37, 40))),
    ("layernorm-backward-power-of-2", lambda: layernorm_backward((32, 64))),
    ("three-dims", _three_dims),
    ("row-statistics-and-a-column-epilogue", _row_statistics_and_a_column_epilogue),
]


@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_the_joined_kernel_writes_the_row_and_the_column_results(build):
    fusion, segmentation = _joined(build())
    (joined,) = [g for g in segmentation.groups if g.sums_columns]
    rows, columns = joined.branches
    assert joined.kind is rows.kind and joined.space == rows.space
    assert columns.kind is SchedulerKind.REDUCTION
    assert set(joined.outputs) == {*rows.outputs, *columns.outputs}
    kernel = generate(joined, fusion, SMALL)
    assert kernel.launches == 2 and "for row_tile in tl.range(prog, " in kernel.source
    assert len([g for g in segmentation.groups if g.kind.launches_kernel]) == 1
    check(fusion, segmentation.groups, options=SMALL, reduction_size=40)


def test_each_program_sums_its_own_rows_and_the_rows_of_a_cut_tile_are_left_out():
    fusion, segmentation = _joined(layernorm_backward((37, 40)))
    (joined,) = segmentation.groups
    source = generate(joined, fusion, SMALL).source
    # 37 rows in tiles of 2: 19 tiles, 3 programs, in Triton's software pipeline
    assert "for row_tile in tl.range(prog, 19, 3, num_stages=3):" in source
    assert "rmask = rows < 37" in source
    plain = dataclasses.replace(SMALL, column_partials_stages=0)
    assert "for row_tile in range(prog, 19, 3):" in generate(joined, fusion, plain).source
    check(fusion, segmentation.groups, options=plain, reduction_size=37)


def test_only_independent_sums_with_one_value_per_column_join():
    b = Builder()
    x = b.define_tensor((24, 40), F32)
    normed = b.op(Op.DIV, x, b.bcast(b.sum(x, (1,)), (24, 40), [0]))
    b.add_output(normed)
    b.add_output(b.sum(normed, (0,)))  # reads the row group's output: the sum waits for it
    b.add_output(b.op(Op.SUB, x, b.bcast(b.op(Op.DIV, b.sum(x, (0,)), b.const(24.0)), (24, 40), [1])))
    fusion, segmentation = _joined(b.build())
    assert not any(g.sums_columns for g in segmentation.groups)


def test_a_column_max_does_not_join():
    b = Builder()
    x = b.define_tensor((24, 40), F32)
    b.add_output(b.op(Op.DIV, x, b.bcast(b.sum(x, (1,)), (24, 40), [0])))
    (top,) = b.add(Op.MAX, [x], {"dims": [0], "keepdim": False, "dtype": F32})
    b.add_output(top)
    fusion, segmentation = _joined(b.build())
    assert not any(g.sums_columns for g in segmentation.groups)


@pytest.mark.parametrize("name", ["layernorm_backward", "rmsnorm_backward"])
def test_the_backward_examples_join_at_the_large_size_and_stay_apart_at_a_few_hundred_rows(name):
    large = compile_fusion(load(get_example(name, "extended-large").text, device="meta").fusion)
    (joined,) = large.segmentation.groups
    assert joined.branches and large.kernels[0].launches == 2 and large.kernel_count == 2
    report = format_segmentation(large.scheduled, large.segmentation, large.launches)
    assert "2 launches: rows with column partials, then the columns" in report
    small = compile_fusion(load(get_example(name, "extended").text, device="meta").fusion)
    assert not any(g.sums_columns for g in small.segmentation.groups)


def test_a_row_group_joins_only_while_its_rows_stay_on_chip_and_fill_the_gpu():
    for shape, joins in (((16384, 4096), True), ((2048, 16384), False), ((64, 4096), False)):
        fusion, segmentation = _joined(layernorm_backward(shape))
        rows = next(g for g in segmentation.groups if g.kind is SchedulerKind.NORMALIZATION)
        rows = rows.branches[0] if rows.branches else rows
        assert keeps_rows_on_chip(rows, fusion) is joins, shape


@pytest.mark.parametrize(
    ("build", "cols", "warps"),
    [
        (rmsnorm_backward, 5120, 8),
        (layernorm_backward, 4096, 8),
        (layernorm_backward, 7168, 8),
        (rmsnorm_backward, 8192, 16),
    ],
)
def test_a_tile_padded_past_the_rows_end_takes_the_warps_of_the_columns_it_holds(build, cols, warps):
    fusion, segmentation = _joined(build((8192, cols)))
    (joined,) = (g for g in segmentation.groups if g.branches)
    kernel = generate(joined, fusion, Options())
    assert kernel.config["parts"][0]["COLS"] == 8192 if cols > 4096 else cols
    assert re.findall(r"_rows\[\(\d+,\)\]\(.*num_warps=(\d+)\)", kernel.source) == [str(warps)]


@pytest.mark.usefixtures("fresh_cache")
def test_a_plan_with_the_joined_kernel_runs_and_validates(device):
    """At the default options: 1059 rows of 1000 columns in tiles of 4 rows, 264 programs."""
    fusion = rmsnorm_backward((1059, 1000))
    compiled = compile_fusion(fusion, alias_outputs=False)
    assert any(g.sums_columns for g in compiled.segmentation.groups)
    inputs = [x.to(device) for x in random_inputs(fusion, seed=7)]
    actual = prepare(fusion, inputs, alias_outputs=False).call(inputs)
    for got, want, out in zip(actual, evaluate(fusion, inputs), fusion.outputs, strict=True):
        assert_close(got, want, reduction_size=reduction_size(fusion, out.name))
    assert torch.isfinite(actual[1].float()).all()


def test_the_programs_option_bounds_the_first_launch():
    fusion, segmentation = _joined(layernorm_backward((37, 40)))
    (joined,) = segmentation.groups
    for programs, expected in ((3, 3), (100, 19)):
        kernel = generate(joined, fusion, dataclasses.replace(SMALL, column_partials_programs=programs))
        assert kernel.grid == (expected,)
