"""A row kernel that also sums columns: a normalization backward's grad-input and grad-weight in one read.

A LayerNorm or RMSNorm backward reduces each row (for grad-input) and sums each column over the rows (for
grad-weight and grad-bias), both of the same [rows, columns] values. As two kernels, each reads the
inputs once. Here the row kernel's programs each take many tiles of rows, one after another, keeping every
row on chip; besides the row results they add each column's terms over their rows into registers, and
write those sums to a partials buffer once, at the end. A second launch adds each column's partials and
writes the column results. The inputs are read once, and nothing is summed with atomics.

The group is a join (`segment.column_sums`) of a row group whose rows stay on chip and a column group
whose reductions are sums and whose outputs are one value per column (it may read what the row group
computes: the row kernel has it in registers); `branches` holds the two.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from hfuse.codegen.code import Body
from hfuse.codegen.emit import compute_type, convert
from hfuse.codegen.kernel import Part, cdiv
from hfuse.codegen.lower import Lowering, pointer
from hfuse.codegen.options import Options
from hfuse.codegen.reduction import (
    Layout,
    RowReducer,
    layout_warps,
    loads_first,
    partial_types,
    row_layout,
    warps,
)
from hfuse.codegen.rows import RowSpace, row_space, store_row_outputs, streamed_inputs, tile_rows
from hfuse.codegen.split import (
    Slots,
    Split,
    SplitKernels,
    combine_part,
    launches_in_order,
    partial_offset,
    partials_buffers,
)
from hfuse.dtypes import DataType
from hfuse.ir import Expr, Fusion, Op, Value
from hfuse.ops import op_def
from hfuse.segment.model import Group


def keeps_rows_on_chip(group: Group, fusion: Fusion, options: Options | None = None) -> bool:
    """Whether `group`'s kernel keeps each row on chip, in tiles of rows enough to fill the GPU: a row
    group that column sums may join."""
    options = options or Options()
    space, layout, _ = row_layout(group, fusion, options)
    return (
        layout.persistent
        and not space.outer
        and cdiv(space.rows, layout.rows) >= options.split_below_programs
        and layout.cols <= options.column_partials_max_cols
    )


def column_partials(group: Group, fusion: Fusion, options: Options, args: Sequence[Value]) -> SplitKernels:
    """The two launches of a join of a row group and a column group (`group.branches`)."""
    rows_group, columns_group = group.branches
    space, layout, _ = row_layout(rows_group, fusion, options)
    columns = row_space(columns_group, fusion)  # its rows are the row group's columns
    sums = [e for e in columns_group.exprs if op_def(e.op).reduces]
    assert all(e.op is Op.SUM for e in sums), "column sums only"
    tiles = cdiv(space.rows, layout.rows)
    programs = min(tiles, options.column_partials_programs)
    slots, scratch = partials_buffers(sums, fusion.value_map, columns.rows * programs)
    first = _rows_part(group, fusion, space, layout, columns, sums, slots, programs, options)
    split = Split(programs, cdiv(space.rows, programs), part_major=True)
    second = combine_part(columns_group, fusion, columns, split, slots, options, columns.wide)
    names = (f"{group.name}_rows", f"{group.name}_columns")
    launches = launches_in_order(names, (first, second), args, columns_group.outputs, scratch)
    buffers = " and ".join(s.name for s in scratch)
    summary = textwrap.fill(
        f"Rows and column sums in one read: {launches[0].name} ({programs} programs, each over about "
        f"{cdiv(tiles, programs)} tiles of {layout.rows} row(s)) writes the row results and adds each "
        f"column's terms over its rows into {buffers}; {launches[1].name} adds each column's "
        f"{programs} partials and writes the column results.",
        width=100,
    )
    return SplitKernels(launches, scratch, summary, {"column_partials": {"programs": programs}})


def _rows_part(
    group: Group,
    fusion: Fusion,
    space: RowSpace,
    layout: Layout,
    columns: RowSpace,
    sums: Sequence[Expr],
    slots: Slots,
    programs: int,
    options: Options,
) -> Part:
    """Program `prog` takes the tiles of rows `prog`, `prog + programs`, ...: each as the row kernel does,
    with every column sum's terms of the tile added to the program's [1, COLS] sums; then it stores them
    at [slot, prog, column] of the partials (each program's row of sums in one piece)."""
    rows_group = group.branches[0]
    body = Body()
    body.reserve("prog", "pid", "row_tile")
    tile = tile_rows(body, "row_tile", layout.rows, space)
    reducer = RowReducer(body, space.shape, space.dims, layout, tile.positions, tile.mask, space.wide)
    reducer.loads_first = loads_first(streamed_inputs(group, fusion), fusion, space.shape, options)
    lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=space.wide, reducer=reducer)
    store_row_outputs(lowering, space, tile)
    tile_sums: list[tuple[str, str, DataType]] = []  # (the tile's column sums, the program's, their type)
    with reducer.columns() as block:
        full = reducer.full_index(block)
        for name in space.full_outputs:
            lowering.store(name, full, spread=tile.row)
        for expr in sums:
            source = fusion.value(expr.inputs[0])
            (acc,) = partial_types(expr, fusion.value_map)
            hint = expr.outputs[0].lower()
            element = convert(lowering.value(source.name, full), source.dtype, acc)
            term = reducer.masked_tile(lowering, full, block, element, acc, "0", hint)
            tile_sum = lowering.assign(f"tl.sum({term}, axis=0)[None, :]", f"{hint}_tile")
            tile_sums.append((tile_sum, body.fresh(f"{hint}_cols"), acc))
    column = body.fresh("column")
    lines = [f"{total} = tl.zeros([1, {layout.cols}], {compute_type(acc)})" for _, total, acc in tile_sums]
    walk = f"prog, {cdiv(space.rows, layout.rows)}, {programs}"
    stages = options.column_partials_stages
    lines.append(
        f"for row_tile in tl.range({walk}, num_stages={stages}):"
        if stages
        else f"for row_tile in range({walk}):"
    )
    lines += [f"    {line}" if line else line for line in body.text()]
    lines += [f"    {total} = {total} + {tile_sum}" for tile_sum, total, _ in tile_sums]
    lines.append(f"{column} = tl.arange(0, {layout.cols})[None, :]")
    store_mask = f", mask={column} < {space.cols})" if layout.cols != space.cols else ")"
    lines.append("# what this program's rows give each column, at [slot, program, column] of the partials")
    for expr, (_, total, _) in zip(sums, tile_sums, strict=True):
        ((buffer, slot),) = slots[expr]
        at = partial_offset(slot, columns.rows, programs, column, "prog", part_major=True)
        lines.append(f"tl.store({pointer(buffer)} + {at}, {total}{store_mask}")
    outputs = ", ".join(dict.fromkeys(rows_group.outputs))
    return Part(
        label=f"{outputs} and the column partials: {space.rows} rows x {space.cols} reduced columns, "
        f"[{layout.rows}, {layout.cols}] tiles, {programs} programs",
        programs=programs,
        lines=tuple(lines),
        num_warps=_warps(layout, space.cols),
        wide_index=space.wide,
        config={"ROWS": layout.rows, "COLS": layout.cols, "persistent": True, "rows": space.rows},
    )


def _warps(layout: Layout, cols: int) -> int:
    """A tile padded past the row's end takes the warps of the columns it holds: a [1, 8192] tile of rows
    of 5120 takes 8, not 16. H200 device us, bf16, 16 -> 8 warps: RMSNorm backward over [8192, 5120] 104.8
    -> 86.7, [8192, 4544] 102.0 -> 82.5, [4096, 7168] 60.9 -> 58.9; LayerNorm backward over [8192, 5120]
    100.2 -> 86.8, [8192, 6144] 104.0 -> 96.9, [4096, 7168] 63.9 -> 61.7."""
    if layout.cols <= cols:
        return layout_warps(layout)
    return warps(layout.rows * cols)
