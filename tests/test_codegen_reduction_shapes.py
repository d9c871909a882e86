"""The reduction schedules chosen from a shape's extents and strides: a normalization of a transposed input
finished in 2-D tiles, outer reductions of a few reduced rows in wide tiles, a split variance in short
parts, and a pipelined loop where tiles of rows are few."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch
from codegen_harness import DEVICE, SPLIT, check, generate, max_and_exp_sum, run, whole_group

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options
from hfuse.dtypes import DataType
from hfuse.ir import Op
from hfuse.reference import evaluate
from hfuse.segment.model import SchedulerKind

F32, F16, BF16 = DataType.Float, DataType.Half, DataType.BFloat16
NORMALIZATION, REDUCTION = SchedulerKind.NORMALIZATION, SchedulerKind.REDUCTION


def _kernel(source: str, name: str) -> str:
    return source[source.index(f"def {name}(") :].split("\ndef ", 1)[0]


def _transposed_softmax(rows: int, cols: int, dtype: DataType):
    """A softmax over dim 1 of a [rows, cols] input stored column-major (dim 0 is contiguous)."""
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], dtype, strides=[1, rows])
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    _, e, total = max_and_exp_sum(b, xf, 1)
    b.add_output(b.add(Op.CAST, [b.add(Op.DIV, [e, total])[0]], {"dtype": dtype})[0])
    return b.build()


@pytest.mark.parametrize("rows, cols, dtype", [(64, 48, F32), (70, 37, BF16), (5, 130, F16)])
def test_a_flat_finish_over_a_transposed_input_walks_2d_tiles(rows, cols, dtype):
    """The input is contiguous along the rows, the output along the columns: the last launch walks
    [TILE, TILE] tiles (loads along one axis, stores along the other), not the output's flat index, which
    would read the input at a stride. Shapes off the tile's edge are masked."""
    fusion = _transposed_softmax(rows, cols, dtype)
    group = whole_group(fusion, NORMALIZATION)
    options = dataclasses.replace(SPLIT, flat_finish_min_elements=1, transpose_tile=16)
    kernel = generate(group, fusion, options)
    assert kernel.launches == 3
    last = _kernel(kernel.source, group.name)
    assert "tiles over dims (0, 1)" in last and "offs" not in last
    check(fusion, [group], options=options, reduction_size=cols)


def test_a_flat_finish_of_inputs_laid_out_as_its_outputs_keeps_the_flat_index():
    b = FusionBuilder()
    x = b.define_tensor([60, 5], F32)
    (top,) = b.add(Op.MAX, [x], {"dims": [0], "keepdim": True, "dtype": F32})
    b.add_output(b.add(Op.SUB, [x, top])[0])
    fusion = b.build()
    group = whole_group(fusion, NORMALIZATION)
    options = dataclasses.replace(SPLIT, flat_finish_min_elements=1)
    kernel = generate(group, fusion, options)
    assert kernel.launches == 3 and "offs = " in _kernel(kernel.source, group.name)
    check(fusion, [group], options=options, reduction_size=60)


def _batch_norm(shape: list[int], dtype: DataType, affine: bool):
    """x normalized over dims 0, 2, 3 (NCHW), scaled and shifted per channel when `affine`."""
    b = FusionBuilder()
    x = b.define_tensor(shape, dtype)
    weights = [b.define_tensor([shape[1]], dtype) for _ in range(2 if affine else 0)]
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    var, mean = b.add(Op.VAR_MEAN, [xf], {"dims": [0, 2, 3], "correction": 0, "keepdim": False})

    def per_channel(value):
        return b.add(Op.BROADCAST_IN_DIM, [value], {"shape": shape, "broadcast_dims": [1]})[0]

    (rstd,) = b.add(Op.RSQRT, [b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])[0]])
    (y,) = b.add(Op.MUL, [b.add(Op.SUB, [xf, per_channel(mean)])[0], per_channel(rstd)])
    for op, weight in zip((Op.MUL, Op.ADD), weights, strict=False):
        (weight_f,) = b.add(Op.CAST, [weight], {"dtype": F32})
        (y,) = b.add(op, [y, per_channel(weight_f)])
    b.add_output(b.add(Op.CAST, [y], {"dtype": dtype})[0])
    return b.build()


@pytest.mark.parametrize("shape, dtype, affine", [([3, 4, 5, 6], F32, False), ([2, 3, 7, 9], BF16, True)])
def test_a_split_normalization_over_gapped_dims_writes_its_outputs_flat(shape, dtype, affine):
    """A batch norm over dims 0, 2, 3 of NCHW, split: its partials in parts, their combine into the stats
    buffer, then the outputs by their flat index (not part by part), at any size. A weight read per
    channel is too few bytes to make that walk tiled."""
    fusion = _batch_norm(shape, dtype, affine)
    group = whole_group(fusion, NORMALIZATION)
    kernel = generate(group, fusion, SPLIT)
    assert kernel.launches == 3 and f"def {group.name}_stats(" in kernel.source
    assert "offs = " in _kernel(kernel.source, group.name)
    part_by_part = generate(group, fusion, dataclasses.replace(SPLIT, flat_finish_gapped=False))
    assert part_by_part.launches == 2
    check(fusion, [group], options=SPLIT, reduction_size=shape[0] * shape[2] * shape[3])


def _sum(shape: list[int], dims: list[int], dtype: DataType, op: Op = Op.SUM):
    b = FusionBuilder()
    x = b.define_tensor(shape, dtype)
    (total,) = b.add(op, [x], {"dims": dims, "keepdim": False, "dtype": F32 if op is Op.SUM else dtype})
    b.add_output(total)
    return b.build()


@pytest.mark.parametrize(
    "shape, dims, dtype, op",
    [
        ([3, 1000], [0], F32, Op.SUM),  # 1000 kept columns: the last tile masked
        ([4, 777], [0], BF16, Op.SUM),
        ([7, 300], [0], F16, Op.MAX),  # 7 reduced rows padded to 8
        ([5, 3, 301], [1], F32, Op.SUM),  # a middle dim
    ],
)
def test_an_outer_reduction_of_a_few_rows_takes_tiles_of_many_kept_columns(shape, dims, dtype, op):
    """[transpose_tile, 4] tiles leave a program 256 elements: with `outer_min_tile` the tile takes as many
    kept columns as make it that large (up to the kept extent's power of 2)."""
    fusion = _sum(shape, dims, dtype, op)
    group = whole_group(fusion, REDUCTION)
    reduced = 1 << (shape[dims[0]] - 1).bit_length()
    kept = shape[-1] if dims == [0] else shape[0] * shape[2]
    options = Options(outer_min_tile=1024)
    wide = generate(group, fusion, options).source
    tile_rows = min(1 << (kept - 1).bit_length(), 1024 // reduced)
    assert f"tl.arange(0, {tile_rows})[:, None]" in wide
    narrow = generate(group, fusion, dataclasses.replace(options, outer_min_tile=0)).source
    assert f"tl.arange(0, {Options().transpose_tile})[:, None]" in narrow
    check(fusion, [group], options=options, reduction_size=shape[dims[0]])


def _variance(shape: list[int], dims: list[int], normalize: bool):
    """var(x) over `dims`, or x normalized by its mean and variance there."""
    b = FusionBuilder()
    x = b.define_tensor(shape, F32)
    var, mean = b.add(Op.VAR_MEAN, [x], {"dims": dims, "correction": 1, "keepdim": False})
    if not normalize:
        b.add_output(var)
        return b.build()
    kept = [d for d in range(len(shape)) if d not in dims]
    (centered,) = b.add(
        Op.SUB, [x, b.add(Op.BROADCAST_IN_DIM, [mean], {"shape": shape, "broadcast_dims": kept})[0]]
    )
    (scale,) = b.add(Op.RSQRT, [b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])[0]])
    scaled = b.add(Op.BROADCAST_IN_DIM, [scale], {"shape": shape, "broadcast_dims": kept})[0]
    b.add_output(b.add(Op.MUL, [centered, scaled])[0])
    return b.build()


def _parts(source: str) -> int:
    return int(re.search(r"A split reduction in (\d+) parts", source).group(1))


@pytest.mark.parametrize("shape, dims", [([2, 300], [1]), ([301], [0]), ([3, 2, 70], [0, 2])])
def test_a_split_variance_reads_its_parts_twice_so_they_stay_short(shape, dims):
    """The partials of a variance are a mean, then the squared deviations from it: two reads of each part,
    the second from L2 while the part is at most `split_reread_part` long. Values far from zero keep
    their digits: the deviations are taken from each part's own mean, so a variance of 1 about a mean of
    1e4 is off by about 1e-4 (each float32 part mean is rounded by half of 1e4's ulp, 5e-4); one pass of
    sums and sums of squares would lose every digit."""
    fusion = _variance(shape, dims, normalize=False)
    group = whole_group(fusion, REDUCTION)
    columns = 1
    for d in dims:
        columns *= shape[d]
    capped = dataclasses.replace(SPLIT, split_reread_part=16)
    parts = _parts(generate(group, fusion, capped).source)
    assert parts >= -(-columns // 16) and parts > _parts(generate(group, fusion, SPLIT).source)
    x = (torch.randn(shape, device=DEVICE) + 1e4).to(torch.float32)
    (got,) = run(group, fusion, {fusion.inputs[0]: x}, capped).values()
    torch.testing.assert_close(got, evaluate(fusion, [x])[0], rtol=1e-3, atol=1e-3)
    check(fusion, [group], options=capped, reduction_size=columns)


def test_a_split_normalization_written_part_by_part_keeps_its_parts():
    """Its second launch writes the outputs part by part, and was far slower in short parts (H200); a
    flat finish does not depend on the parts, which are then short."""
    fusion = _variance([2, 300], [1], normalize=True)
    group = whole_group(fusion, NORMALIZATION)
    capped = dataclasses.replace(SPLIT, split_reread_part=16)
    assert _parts(generate(group, fusion, capped).source) == _parts(generate(group, fusion, SPLIT).source)
    check(fusion, [group], options=capped, reduction_size=300)
    gapped = _batch_norm([3, 4, 5, 6], F32, affine=False)
    group = whole_group(gapped, NORMALIZATION)
    assert _parts(generate(group, gapped, capped).source) > _parts(generate(group, gapped, SPLIT).source)
    check(gapped, [group], options=capped, reduction_size=90)


@pytest.mark.parametrize("shape, dims", [([4, 6, 40], [0, 2]), ([6, 48], [1])])
def test_few_tiles_of_long_rows_loop_through_a_software_pipeline(shape, dims):
    """One launch over fewer tiles of rows than `inner_stages_below_tiles` pipelines its loop over the
    columns; more tiles keep a plain loop."""
    fusion = _sum(shape, dims, BF16)
    group = whole_group(fusion, REDUCTION)
    looped = Options(persistent_max_cols=8, persistent_reread_cols=0, loop_cols=8, row_tile=8)
    few = generate(group, fusion, dataclasses.replace(looped, inner_stages_below_tiles=64)).source
    many = generate(group, fusion, dataclasses.replace(looped, inner_stages_below_tiles=2)).source
    assert f"num_stages={Options().inner_stages})" in few and "num_stages" not in many
    check(fusion, [group], options=dataclasses.replace(looped, inner_stages_below_tiles=64))


@pytest.mark.parametrize("dtype, expected", [(F32, 8), (BF16, 4), (F16, 4)])
def test_a_widened_outer_tile_takes_the_warps_whose_threads_each_load_16_bytes(dtype, expected):
    """[1024, 4] tiles: 1024 kept columns of 4 bytes make 256 threads of 16-byte loads (8 warps), of 2
    bytes 128 (4 warps); the tile's size alone would give 2-byte ones 8 as well."""
    fusion = _sum([4, 4096], [0], dtype)
    group = whole_group(fusion, REDUCTION)
    source = generate(group, fusion, Options(outer_min_tile=4096)).source
    assert "tl.arange(0, 1024)[:, None]" in source and f"num_warps={expected})" in source
    check(fusion, [group], options=Options(outer_min_tile=4096), reduction_size=4)
