"""Transpose kernels: 2-D tiles over the two dims that an input and an output walk contiguously.

Axis `a` is the output's stride-1 dim; axis `b` is the output dim that walks the stride-1 dim of
the input with the most bytes (found by probing the lowering, so views in between count). A tile
is [TILE_B, TILE_A]: loads are contiguous along its rows, stores along its columns, and Triton
converts the layout in between through shared memory. Where no input disagrees with the output,
the part falls back to the pointwise flat index (already coalesced on both sides).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hfuse.codegen.code import Body
from hfuse.codegen.indexing import delinearize
from hfuse.codegen.kernel import Part, cdiv, needs_wide_index, next_power_of_2
from hfuse.codegen.lower import Index, Lowering, Reducer
from hfuse.codegen.options import Options
from hfuse.codegen.pointwise import flat_part, written_over
from hfuse.codegen.probe import load_axes
from hfuse.ir import Fusion
from hfuse.layout import innermost_dim
from hfuse.segment.model import Group


def tile_axes(
    group: Group, fusion: Fusion, shape: tuple[int, ...], names: Sequence[str], outweigh: bool = False
) -> tuple[int, int] | None:
    """(output's contiguous axis, the axis an input is contiguous along), or None when they agree; with
    `outweigh`, also None unless the inputs contiguous along that axis are as many bytes as those along the
    output's (a small weight read per channel does not make a tiled walk worth it)."""
    output = fusion.value(names[0])
    a = innermost_dim(output.shape, output.strides)
    if a is None:
        return None
    weight: dict[int, int] = {}
    for value, axis in load_axes(fusion, group.exprs, group.inputs, shape, names):
        if axis is not None:
            weight[axis] = weight.get(axis, 0) + value.nbytes
    across = {axis: nbytes for axis, nbytes in weight.items() if axis != a}
    if not across:
        return None
    b = max(across, key=lambda axis: across[axis])
    if outweigh and across[b] < weight.get(a, 0):
        return None
    return a, b


def tiled_part(
    group: Group,
    fusion: Fusion,
    shape: tuple[int, ...],
    names: Sequence[str],
    axes: tuple[int, int],
    options: Options,
    reducer: Reducer | None = None,
) -> Part:
    """`reducer`: where the values of reductions in `group` come from (see `flat_part`)."""
    a, b = axes
    tile_a = min(options.transpose_tile, next_power_of_2(shape[a]))
    tile_b = min(options.transpose_tile, next_power_of_2(shape[b]))
    count_a, count_b = cdiv(shape[a], tile_a), cdiv(shape[b], tile_b)
    others = [k for k in range(len(shape)) if k not in axes]
    programs = math.prod(shape[k] for k in others) * count_a * count_b
    values = [fusion.value(n) for n in (*names, *group.inputs)]
    wide = needs_wide_index(values, math.prod(shape))

    body = Body()
    body.reserve("prog", "pid")
    rest, bt, at = delinearize("prog", [math.prod(shape[k] for k in others), count_b, count_a])
    at, bt, rest = body.assign(at, "tile_a"), body.assign(bt, "tile_b"), body.assign(rest, "rest")
    dims = ["0"] * len(shape)
    for axis, tile_id, tile, tag, expand in (
        (a, at, tile_a, "axis_a", "[None, :]"),
        (b, bt, tile_b, "axis_b", "[:, None]"),
    ):
        start = "" if tile_id == "0" else f"{tile_id} * {tile} + "
        dims[axis] = body.define(f"d{axis}", f"{start}tl.arange(0, {tile}){expand}", frozenset({tag}))
    for k, text in zip(others, delinearize(rest, [shape[k] for k in others]), strict=True):
        dims[k] = body.assign(text, f"d{k}")
    mask = set()
    if shape[a] % tile_a:
        mask.add(body.define("mask_a", f"{dims[a]} < {shape[a]}", frozenset({"axis_a"})))
    if shape[b] % tile_b:
        mask.add(body.define("mask_b", f"{dims[b]} < {shape[b]}", frozenset({"axis_b"})))
    lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=wide, reducer=reducer)
    for name in names:
        lowering.store(name, Index(tuple(dims), frozenset(mask)))
    return Part(
        label=f"{', '.join(names)}: [{tile_b}, {tile_a}] tiles over dims ({b}, {a}) of {list(shape)}",
        programs=programs,
        lines=tuple(body.text()),
        num_warps=4 if tile_a * tile_b <= 4096 else 8,
        wide_index=wide,
        config={"outputs": list(names), "shape": list(shape), "TILE": [tile_b, tile_a], "dims": [b, a]},
    )


def transpose_parts(group: Group, fusion: Fusion, options: Options) -> list[Part]:
    shape, names = written_over(group, fusion)
    axes = tile_axes(group, fusion, shape, names)
    if axes is None:
        return [flat_part(group, fusion, shape, names, options)]
    return [tiled_part(group, fusion, shape, names, axes, options)]
