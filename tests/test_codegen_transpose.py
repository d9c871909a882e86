"""Transpose kernels: 2-D tiles where inputs and outputs disagree on the innermost dim."""

from __future__ import annotations

import pytest
from codegen_harness import check, generate, whole_group

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options
from hfuse.dtypes import DataType
from hfuse.ir import Op
from hfuse.segment.model import SchedulerKind

F32, F16, BF16, I64 = DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int
TRANSPOSE = SchedulerKind.TRANSPOSE
SMALL_TILES = Options(transpose_tile=16)


def permute_cast(shape, dims, source, target):
    b = FusionBuilder()
    x = b.define_tensor(shape, source)
    (y,) = b.add(Op.PERMUTE, [x], {"dims": dims})
    (out,) = b.add(Op.CAST, [y], {"dtype": target})
    b.add_output(out)
    return b.build()


CASES = [
    ("2d_float_to_bfloat16", [40, 72], [1, 0], F32, BF16, [0, 1]),
    ("2d_ragged_half_to_float", [70, 45], [1, 0], F16, F32, [0, 1]),
    ("3d_swap_inner", [3, 20, 33], [0, 2, 1], F32, F16, [1, 2]),
    ("3d_rotate", [5, 6, 7], [2, 0, 1], BF16, F32, [0, 2]),
    ("int", [17, 9], [1, 0], I64, I64, [0, 1]),
]


@pytest.mark.parametrize(
    ("shape", "dims", "source", "target", "tile_dims"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_transpose_and_cast(shape, dims, source, target, tile_dims):
    fusion = permute_cast(shape, dims, source, target)
    group = whole_group(fusion, TRANSPOSE)
    part = generate(group, fusion, SMALL_TILES).config["parts"][0]
    assert part["dims"] == tile_dims
    check(fusion, [group], options=SMALL_TILES)


def test_column_major_input_into_row_major_output():
    b = FusionBuilder()
    x = b.define_tensor([30, 50], F32, strides=[1, 30])
    y = b.define_tensor([30, 50], F32)
    (s,) = b.add(Op.ADD, [x, y])
    (out,) = b.add(Op.SIGMOID, [s])
    b.add_output(out)
    fusion = b.build()
    group = whole_group(fusion, TRANSPOSE)
    part = generate(group, fusion, SMALL_TILES).config["parts"][0]
    assert part["dims"] == [0, 1] and part["TILE"] == [16, 16]  # [rows of the tile, columns of the tile]
    check(fusion, [group], options=SMALL_TILES)


def test_agreeing_layouts_fall_back_to_a_flat_index():
    fusion = permute_cast([4, 6, 8], [1, 0, 2], F32, F16)  # the innermost dim stays innermost
    group = whole_group(fusion, TRANSPOSE)
    part = generate(group, fusion).config["parts"][0]
    assert "BLOCK" in part and "TILE" not in part
    check(fusion, [group])


def test_default_tiles_are_64_by_64_with_4_warps():
    fusion = permute_cast([256, 192], [1, 0], F32, BF16)
    kernel = generate(whole_group(fusion, TRANSPOSE), fusion)
    assert kernel.config["parts"][0]["TILE"] == [64, 64]
    assert kernel.num_warps == 4 and kernel.grid == (12,)
    assert "tl.arange(0, 64)[None, :]" in kernel.source and "tl.arange(0, 64)[:, None]" in kernel.source
