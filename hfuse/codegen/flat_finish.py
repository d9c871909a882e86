"""The last launch of a large column split that writes full-shape outputs: a flat pass over them (also of
a split normalization over reduced dims with kept ones between them: `Options.flat_finish_gapped`).

A column (outer) normalization, such as x - mean(x, dim=0), split into partials reads the reduced
statistics back at every element. Its two-launch form writes the outputs tile by tile of the kept
columns, a program per (tile, part): few programs (512 at the suite's size, 24% occupancy on the H200).
Instead the combine launch also stores each reduction's result per row (kept position) into a small
`stats` buffer, and this launch walks the full-shape outputs by their flat index, as a pointwise kernel
does, reading each element's row statistics from that buffer. Where the inputs contiguous along
another dim than the outputs outweigh the others (a softmax over the rows of a transposed tensor), the
walk is in 2-D tiles instead, as a transpose's (H200 device us, a softmax over the rows of a [4096, 8192]
fp32 input stored column-major: 290.2 flat, 102.4 in tiles; torch.compile 135.4).
"""

from __future__ import annotations

from collections.abc import Sequence

from hfuse.codegen.indexing import linearize
from hfuse.codegen.kernel import Part, Scratch, typed_buffers
from hfuse.codegen.lower import Index, Lowering, pointer
from hfuse.codegen.options import Options
from hfuse.codegen.pointwise import flat_part
from hfuse.codegen.rows import RowSpace, RowTile, kept_positions, row_index
from hfuse.codegen.transpose import tile_axes, tiled_part
from hfuse.ir import Expr, Fusion
from hfuse.segment.model import Group

StatsSlots = dict[str, tuple[str, int]]  # reduction output -> (stats buffer, slot)


def stats_buffers(
    reductions: Sequence[Expr], fusion: Fusion, rows: int
) -> tuple[StatsSlots, tuple[Scratch, ...]]:
    """A slot of `rows` values for each output of each reduction, in one buffer per stored type, laid out
    [slot, row]."""
    names = [name for expr in reductions for name in expr.outputs]
    places, scratch = typed_buffers("stats", [fusion.value(name).dtype for name in names], rows)
    return dict(zip(names, places, strict=True)), scratch


def store_stats(lowering: Lowering, space: RowSpace, tile: RowTile, slots: StatsSlots) -> None:
    """Stores each reduction output's value at the tile's rows into its slot (a combine launch's work)."""
    mask = lowering.mask_text(tile.mask)
    for name, (buffer, slot) in slots.items():
        text = lowering.value(name, row_index(space, tile, lowering.values[name]))
        offset = _offset(slot, space.rows, tile.row)
        store = f"tl.store({pointer(buffer)} + {offset}, {text}" + (f", mask={mask})" if mask else ")")
        lowering.body.statement(store, lowering.body.top)


def _offset(slot: int, rows: int, row: str) -> str:
    """Where a row's value in `slot` lies in its stats buffer, laid out [slot, row]."""
    return f"{slot * rows} + {row}" if slot else row


class _StatsReader:
    """The Reducer of the flat pass: a reduction's outputs are its stored statistics at the row of the
    index."""

    def __init__(self, space: RowSpace, slots: StatsSlots) -> None:
        self.space, self.slots = space, slots

    def reduce(self, lowering: Lowering, expr: Expr, index: Index) -> dict[str, str]:
        positions = kept_positions(self.space.kept, index, lowering.values[expr.inputs[0]].rank)
        row = lowering.assign(linearize(positions, self.space.row_shape), "row")
        mask = lowering.mask_text(index.mask)
        found = {}
        for name in expr.outputs:
            buffer, slot = self.slots[name]
            offset = _offset(slot, self.space.rows, row)
            load = f"tl.load({pointer(buffer)} + {offset}" + (f", mask={mask}, other=0)" if mask else ")")
            found[name] = lowering.assign(load, name.lower())
        return found


def flat_finish_part(
    group: Group, fusion: Fusion, space: RowSpace, slots: StatsSlots, options: Options
) -> Part:
    """The launch writing the group's full-shape outputs by their flat index, the reductions read from
    the stats buffers."""
    reader = _StatsReader(space, slots)
    axes = tile_axes(group, fusion, space.shape, space.full_outputs, outweigh=True)
    if axes is not None:
        return tiled_part(group, fusion, space.shape, space.full_outputs, axes, options, reader)
    return flat_part(group, fusion, space.shape, space.full_outputs, options, reader)
