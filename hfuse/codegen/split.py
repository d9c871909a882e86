"""Split reductions: a few long rows reduced by many programs, in two launches (or three).

With too few rows to fill the GPU (a full reduction has one) and long rows, one program per tile of
rows leaves most SMs idle. So the first launch, `<name>_partials`, runs a program per (tile of rows,
part of the columns): each reduces its part of each row into a partials buffer, in the type the
reduction accumulates in (float32 or float64 for float sums and products, int64 for integer ones,
the input's compute type for max and min; VAR, VAR_MEAN and WELFORD store the part's mean and sum of
squared deviations from it). The second launch, one program per tile of rows, combines each row's
partials (sum, max, min, product; the means and deviations merge exactly: M2 = sum(M2_i) +
sum(n_i * (mean_i - mean)^2)) and then does what the one-launch kernel does after its reductions:
the pointwise ops on the reduced values, the casts and the stores. No atomics: results are
deterministic. `Options` says when to split and into how many parts.

A group writing values of the full reduced shape (a normalization, which reads its row statistics
back along the row) has its second launch run a program per (tile of rows, part): each combines its
rows' partials and writes its part of their columns. A large column (outer) normalization instead
combines the partials into a small buffer of each reduction's result per row in its second launch,
and writes the full-shape outputs in a third, by their flat index (`flat_finish`). A group stays one
launch when a reduction reads another reduction of the group (a variance written as a mean then a sum
of squares): the second reduction needs the first's whole row; a softmax's max and sum of exp are
reduced together, online.
"""

from __future__ import annotations

import dataclasses
import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from hfuse.codegen.code import Body
from hfuse.codegen.emit import convert
from hfuse.codegen.flat_finish import StatsSlots, flat_finish_part, stats_buffers, store_stats
from hfuse.codegen.indexing import linearize, term
from hfuse.codegen.kernel import INT32_LIMIT, Launch, Part, Scratch, cdiv, next_power_of_2, typed_buffers
from hfuse.codegen.lower import Index, Lowering, describe, pointer
from hfuse.codegen.options import Options
from hfuse.codegen.reduction import (
    REDUCE,
    ColumnPart,
    Layout,
    RowReducer,
    choose_layout,
    finish_softmax_pair,
    loads_first,
    neutral,
    partial_types,
    reads_a_reduction,
    reads_once,
    softmax_pair,
    softmax_pairs,
    statistics,
    warps,
)
from hfuse.codegen.rows import (
    RowSpace,
    RowTile,
    kept_positions,
    row_space,
    rows_aligned,
    store_row_outputs,
    streamed_inputs,
    tile_rows,
)
from hfuse.dtypes import DataType
from hfuse.ir import Expr, Fusion, Op, Value
from hfuse.ops import op_def
from hfuse.segment.model import Group

Slots = dict[Expr, tuple[tuple[str, int], ...]]  # each reduction's partials: (buffer, slot) per value


@dataclass(frozen=True, slots=True)
class Split:
    parts: int  # of each row
    length: int  # columns of each part but the last (a multiple of the column block)
    part_major: bool = False  # partials laid out [slot, part, row] (else [slot, row, part])


@dataclass(frozen=True, slots=True)
class SplitKernels:
    launches: tuple[Launch, ...]  # the partials, then the rest
    scratch: tuple[Scratch, ...]  # the partials buffers, and any stats buffers
    summary: str  # for the module docstring
    config: dict[str, Any]


def choose_split(
    row_programs: int,
    cols: int,
    block: int,
    options: Options,
    outer: bool = False,
    programs: int = 0,
    below: int = 0,
    longest: int = 0,
) -> Split | None:
    """Parts enough for about `programs` (else `split_programs`) programs in all, each of at least
    `split_min_part` columns (`split_min_part_outer` for an outer reduction) and, when given, at most
    `longest`, made of whole column blocks; None when the rows fill the GPU (`below`, else
    `split_below_programs`, tiles of rows or more) or are short."""
    min_cols, min_part = (
        (options.split_min_cols_outer, options.split_min_part_outer)
        if outer
        else (options.split_min_cols, options.split_min_part)
    )
    if not row_programs or row_programs >= (below or options.split_below_programs) or cols < min_cols:
        return None
    parts = max(1, min(cdiv(programs or options.split_programs, row_programs), cols // min_part))
    if longest:
        parts = max(parts, cdiv(cols, longest))
    length = cdiv(cdiv(cols, parts), block) * block
    parts = cdiv(cols, length)
    return Split(parts, length) if parts > 1 else None


def split_reduction(
    group: Group, fusion: Fusion, options: Options, args: Sequence[Value]
) -> SplitKernels | None:
    """The launches computing `group` (two, or three for a flat last launch), or None when it is better
    or only possible as one launch."""
    space = row_space(group, fusion)
    reductions = [e for e in group.exprs if op_def(e.op).reduces]
    pairs = softmax_pairs(group, fusion, reductions)
    paired = {expr for pair in pairs for expr in pair}
    if reads_a_reduction(group, reductions, {exp_sum for _, exp_sum in pairs}):
        return None
    if any(fusion.value(row_max.inputs[0]).dtype is DataType.Double for row_max, _ in pairs):
        return None  # the online pair computes in float32
    # the first launch always loops over its part's column blocks
    streams = streamed_inputs(group, fusion)
    aligned = rows_aligned(fusion, streams)
    layout = choose_layout(
        space.rows,
        space.cols,
        space.outer,
        dataclasses.replace(options, persistent_max_cols=0),
        streams=len(streams),
        aligned=aligned,
    )
    streaming = options.split_streaming and not pairs and reads_once(group, space)
    if streaming:
        layout = _streaming(layout, options)
    gapped = any(b - a > 1 for a, b in pairwise(space.dims))  # kept dims between reduced ones
    flat = bool(space.full_outputs) and (
        (space.outer and math.prod(space.shape) >= options.flat_finish_min_elements)
        or (not space.outer and gapped and options.flat_finish_gapped)
    )
    programs = options.split_programs
    below = options.flat_split_below_programs if flat and space.outer else options.split_below_programs
    # scalar loads where no later launch reads the rows in the first one's tiles
    scalar = (
        space.outer and not aligned and (flat or not space.full_outputs) and options.misaligned_outer_tile > 0
    )
    # rows off 4-byte boundaries split however many tiles they make (`Options.off_4_bytes_outer_tile`)
    elementwise = scalar and options.off_4_bytes_outer_tile > 0 and not rows_aligned(fusion, streams, 4)
    if elementwise and not space.full_outputs:  # a column normalization keeps the tiles below
        layout, programs = _scalar_loads(
            layout, options.off_4_bytes_outer_tile, options.off_4_bytes_outer_programs
        )
    elif scalar:
        layout, programs = _scalar_loads(
            layout, options.misaligned_outer_tile, options.misaligned_outer_programs
        )
    tiles = cdiv(space.rows, layout.rows)
    # a variance's part is read twice; a finish part by part keeps its parts (see `split_reread_part`)
    rereads = (flat or not space.full_outputs) and any(
        e.op.family is not Op.SUM.family for e in reductions if e not in paired
    )
    split = choose_split(
        tiles,
        space.cols,
        layout.cols,
        options,
        space.outer,
        programs,
        tiles + 1 if elementwise else below,
        options.split_reread_part if rereads else 0,
    )
    if split is None:
        return None
    slots, scratch = partials_buffers(reductions, fusion.value_map, space.rows * split.parts)
    positions = space.rows * split.parts * split.length  # the last part may run past the row's end
    wide = space.wide or positions > INT32_LIMIT or any(s.numel > INT32_LIMIT for s in scratch)
    first_loads = loads_first(streams, fusion, space.shape, options)
    evict = streams if streaming else ()
    first = _partials_part(group, fusion, space, layout, split, slots, reductions, wide, first_loads, evict)
    partials = " and ".join(s.name for s in scratch)
    names: tuple[str, ...] = (f"{group.name}_partials", group.name)
    if flat:
        stats, stats_scratch = stats_buffers(reductions, fusion, space.rows)
        scratch = (*scratch, *stats_scratch)
        second = combine_part(group, fusion, space, split, slots, options, wide, stats)
        third = flat_finish_part(group, fusion, space, stats, options)
        names = (names[0], f"{group.name}_stats", names[1])
        parts: tuple[Part, ...] = (first, second, third)
        finish = (
            f"combines the partials of each row into {' and '.join(s.name for s in stats_scratch)}, then "
            f"{group.name} ({_programs(third)}) writes the outputs by their flat index"
        )
    elif space.full_outputs:
        parts = (first, _finish_part(group, fusion, space, layout, split, slots, wide))
        finish = "combines the partials of each row, then writes its part of each row's outputs"
    else:
        parts = (first, combine_part(group, fusion, space, split, slots, options, wide))
        finish = "combines the partials of each row and writes the outputs"
    launches = launches_in_order(names, parts, args, group.outputs, scratch)
    if elementwise and tiles >= below:
        why = "the rows start off 4-byte boundaries, and one launch keeps too few of their loads in flight"
    elif tiles < options.split_below_programs:
        why = "the rows are too few to fill the GPU"
    else:
        why = "one launch would read each tile of rows twice"
    scalar_note = (
        f" The inputs' rows start off 16-byte boundaries (no vector loads): the first launch reads "
        f"[{layout.rows}, {layout.cols}] tiles in about {programs} programs, to keep more loads in flight."
        if scalar
        else ""
    )
    summary = textwrap.fill(
        f"A split reduction in {split.parts} parts: {why}, so "
        f"{names[0]} ({_programs(first)}) reduces each row's {space.cols} columns in "
        f"{split.parts} parts of {split.length} into {partials}, then {names[1]} "
        f"({_programs(parts[1])}) {finish}.{scalar_note}",
        width=100,
    )
    return SplitKernels(
        launches, scratch, summary, {"split": {"parts": split.parts, "part_cols": split.length}}
    )


def _streaming(layout: Layout, options: Options) -> Layout:
    """The first launch's layout when its streamed inputs are read by it alone (`Options.split_streaming`):
    a plain loop, and an inner reduction's blocks of at most `split_stream_cols` columns."""
    layout = dataclasses.replace(layout, stages=0)
    if layout.outer:
        return layout
    return dataclasses.replace(layout, cols=min(layout.cols, options.split_stream_cols))


def _scalar_loads(layout: Layout, tile: int, programs: int) -> tuple[Layout, int]:
    """The first launch's tiles of `tile` elements and its programs when it reads rows off 16-byte
    boundaries and no later launch reads them in its tiles (`Options.misaligned_outer_tile`, and
    `Options.off_4_bytes_outer_tile` for rows off 4 bytes)."""
    cols = max(1, min(layout.cols, tile // layout.rows))
    return dataclasses.replace(layout, cols=cols), programs


def launches_in_order(
    names: Sequence[str],
    parts: Sequence[Part],
    args: Sequence[Value],
    written_later: Sequence[str],
    scratch: Sequence[Scratch],
) -> tuple[Launch, ...]:
    """A module's launches, each taking the arguments and scratch buffers its part reads or writes; the
    first is not given the outputs the later ones write (`written_later`)."""
    names_of_args = [v.name for v in args]
    tensors = {v.name for v in args if v.is_tensor} | {s.name for s in scratch}
    buffers = [s.name for s in scratch]
    first_args = [n for n in names_of_args if n not in written_later]
    return tuple(
        Launch(
            name,
            (part,),
            used_arguments([*(first_args if i == 0 else names_of_args), *buffers], part, tensors),
        )
        for i, (name, part) in enumerate(zip(names, parts, strict=True))
    )


def _programs(part: Part) -> str:
    return f"{part.programs} program{'s' if part.programs != 1 else ''}"


def partials_buffers(
    reductions: Sequence[Expr], values: dict[str, Value], per_slot: int
) -> tuple[Slots, tuple[Scratch, ...]]:
    """One buffer per type, laid out [slot, row, part]: a slot per partial value of each reduction."""
    types = [dtype for expr in reductions for dtype in partial_types(expr, values)]
    places, scratch = typed_buffers("partials", types, per_slot)
    found = iter(places)
    return {expr: tuple(next(found) for _ in partial_types(expr, values)) for expr in reductions}, scratch


def partial_offset(slot: int, rows: int, parts: int, row: str, part: str, part_major: bool = False) -> str:
    """Where the partial of `row` and `part` in `slot` lies in its buffer: at [slot, row, part], or at
    [slot, part, row] when `part_major`."""
    terms = [str(slot * rows * parts)] if slot else []
    if part_major:
        return " + ".join([*terms, f"{term(part)} * {rows}", row])
    if row != "0":
        terms.append(f"{term(row)} * {parts}")
    return " + ".join([*terms, part])


def _label(group: Group) -> str:
    return ", ".join(dict.fromkeys(group.outputs))


def _part_program(
    body: Body, space: RowSpace, layout: Layout, split: Split, part_name: str, last_first: bool = False
) -> tuple[RowTile, str, ColumnPart]:
    """A program of a launch that runs one per (tile of rows, part of the columns): program `prog` takes
    part `prog % parts` of the rows of tile `prog // parts`, or with `last_first` what program
    `programs - 1 - prog` of the same launch would; its rows, its part's index (named `part_name`) and its
    columns."""
    body.reserve("prog", "pid")
    tiles = cdiv(space.rows, layout.rows)
    at = body.define("order", f"{tiles * split.parts - 1} - prog", frozenset()) if last_first else "prog"
    first, part = None, at
    if tiles > 1:
        first = body.define("tile", f"{at} // {split.parts}", frozenset())
        part = body.define(part_name, f"{at} % {split.parts}", frozenset())
    tile = tile_rows(body, first, layout.rows, space)
    start = body.define("part_start", f"{term(part)} * {split.length}", frozenset())
    return tile, part, ColumnPart(start, split.length, part, split.parts)


def _per_part(
    label: str,
    body: Body,
    space: RowSpace,
    layout: Layout,
    split: Split,
    wide: bool,
    extra: dict[str, Any],
    streaming: bool = False,
) -> Part:
    """A launch of a program per (tile of rows, part of the columns), from its body. Over outer (column)
    reductions at most 4 warps: more programs resident on an SM, more tiles in flight (H200, 8 -> 4 warps:
    bias gradients bf16 47.1 -> 46.1 us and fp32 62.6 -> 61.1, column centering 113.0 -> 111.2), but 8
    for a `streaming` first launch, whose plain loop keeps fewer loads in flight a warp; an inner one's
    4 values a thread."""
    num_warps = warps(layout.rows * layout.cols)
    if streaming:
        num_warps = 8 if layout.outer else max(1, layout.rows * layout.cols // (4 * 32))
    elif layout.outer:
        num_warps = min(4, num_warps)
    return Part(
        label=label,
        programs=cdiv(space.rows, layout.rows) * split.parts,
        lines=tuple(body.text()),
        num_warps=num_warps,
        wide_index=wide,
        config={
            "ROWS": layout.rows,
            "COLS": layout.cols,
            **extra,
            "outer": layout.outer,
            "rows": space.rows,
            "cols": space.cols,
        },
    )


def _partials_part(
    group: Group,
    fusion: Fusion,
    space: RowSpace,
    layout: Layout,
    split: Split,
    slots: Slots,
    reductions: Sequence[Expr],
    wide: bool,
    first_loads: tuple[str, ...],
    evict_first: tuple[str, ...],
) -> Part:
    """The first launch: program `prog` reduces part `prog % parts` of the rows of tile `prog // parts`;
    `first_loads` are loaded at the top of each column block (`reduction.loads_first`), `evict_first`
    (inputs no later launch reads) with that hint, by a streaming launch (`Options.split_streaming`)."""
    body = Body()
    tile, part, columns = _part_program(body, space, layout, split, "part")
    reducer = RowReducer(body, space.shape, space.dims, layout, tile.positions, tile.mask, wide, columns)
    reducer.loads_first = first_loads
    lowering = Lowering(
        fusion, group.exprs, group.inputs, body, wide_index=wide, reducer=reducer, evict_first=evict_first
    )
    found = reducer.partials(lowering, reductions)
    mask = lowering.mask_text(tile.mask)
    body.comment("what this part gives each row, at [slot, row, part] of the partials", body.top)
    for expr in reductions:
        for (buffer, slot), value in zip(slots[expr], found[expr], strict=True):
            offset = partial_offset(slot, space.rows, split.parts, tile.row, part)
            store = f"tl.store({pointer(buffer)} + {offset}, {value}" + (f", mask={mask})" if mask else ")")
            body.statement(store, body.top)
    label = (
        f"{_label(group)}: {space.rows} rows x {space.cols} reduced columns in {split.parts} parts "
        f"of {split.length}, [{layout.rows}, {layout.cols}] tiles" + (", outer" if layout.outer else "")
    )
    extra = {"persistent": False}
    return _per_part(label, body, space, layout, split, wide, extra, streaming=bool(evict_first))


def _finish_part(
    group: Group,
    fusion: Fusion,
    space: RowSpace,
    layout: Layout,
    split: Split,
    slots: Slots,
    wide: bool,
) -> Part:
    """The second launch when the group writes full-shape outputs: program `prog` combines the partials of
    the rows of tile `prog // parts` and writes part `prog % parts` of their columns (every part writes
    the row outputs, the same values)."""
    body = Body()
    # with alternating passes, the programs and their columns last to first: the first launch read those last
    tile, _, columns = _part_program(body, space, layout, split, "own_part", last_first=layout.alternate)
    reducer = _MergingRowReducer(
        PartialsMerger(body, space, tile, split, slots),
        body, space.shape, space.dims, layout, tile.positions, tile.mask, wide, columns,
    )  # fmt: skip
    reducer.first_backward = layout.alternate
    lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=wide, reducer=reducer)
    store_row_outputs(lowering, space, tile)
    with reducer.columns() as block:
        for name in space.full_outputs:
            lowering.store(name, reducer.full_index(block), spread=tile.row)
    label = (
        f"{_label(group)}: the {split.parts} partials of each of {space.rows} rows combined, then "
        f"the outputs in parts of {split.length}, [{layout.rows}, {layout.cols}] tiles"
        + (", outer" if layout.outer else "")
    )
    return _per_part(label, body, space, layout, split, wide, {"PARTS": split.parts})


class _MergingRowReducer(RowReducer):
    """The columns of one part, as the partials launch walks them, with reductions read from the merged
    partials."""

    def __init__(self, merger: PartialsMerger, *args: Any) -> None:
        super().__init__(*args)
        self.merger = merger

    def reduce(self, lowering: Lowering, expr: Expr, index: Index) -> dict[str, str]:
        """The merged partials at the index's rows: its column masks left out, so that they are read once,
        before the loop over the part's columns."""
        rows_only = frozenset(m for m in index.mask if not self.body.deps_of(m) & self.column_axes)
        return self.merger.reduce(lowering, expr, Index(index.dims, rows_only))


def combine_part(
    group: Group,
    fusion: Fusion,
    space: RowSpace,
    split: Split,
    slots: Slots,
    options: Options,
    wide: bool,
    stats: StatsSlots | None = None,
) -> Part:
    """The second launch: a program per tile of rows loads their [ROWS, PARTS] partials and combines them,
    and writes the row outputs and, given `stats`, each reduction's result into its slot there."""
    width = next_power_of_2(split.parts)
    tile_size = max(1, min(next_power_of_2(space.rows), options.row_tile // width))
    body = Body()
    body.reserve("prog", "pid")
    tile = tile_rows(body, "prog", tile_size, space)
    merger = PartialsMerger(body, space, tile, split, slots)
    lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=wide, reducer=merger)
    store_row_outputs(lowering, space, tile)
    if stats:
        store_stats(lowering, space, tile, stats)
    return Part(
        label=f"{_label(group)}: the {split.parts} partials of each of {space.rows} rows, "
        f"[{tile_size}, {width}] tiles",
        programs=cdiv(space.rows, tile_size),
        lines=tuple(body.text()),
        num_warps=warps(tile_size * width),
        wide_index=wide,
        config={"ROWS": tile_size, "PARTS": width, "rows": space.rows},
    )


class PartialsMerger:
    """The Reducer of the second launch: a reduction's value is its partials, combined."""

    def __init__(self, body: Body, space: RowSpace, tile: RowTile, split: Split, slots: Slots) -> None:
        self.space, self.tile, self.split, self.slots = space, tile, split, slots
        width = next_power_of_2(split.parts)
        self.part = body.define("part", f"tl.arange(0, {width})[None, :]", frozenset({"part"}))
        self.part_mask: frozenset[str] = frozenset()
        if width != split.parts:
            self.part_mask = frozenset({body.define("pmask", f"part < {split.parts}", frozenset({"part"}))})
        self._pairs: dict[tuple[Expr, Expr], dict[str, str]] = {}

    def reduce(self, lowering: Lowering, expr: Expr, index: Index) -> dict[str, str]:
        pair = softmax_pair(expr, lowering)
        if pair is not None:
            if pair not in self._pairs:  # the other of the pair may be used at other dims first
                self._pairs[pair] = self._merged_pair(lowering, *pair, index)
            return self._pairs[pair]
        simple = expr.op.family is Op.SUM.family
        hints = [f"{expr.outputs[0].lower()}_parts"] if simple else ["mean_parts", "m2_parts"]
        loaded = self._load_parts(lowering, expr, index, hints)
        acc = partial_types(expr, lowering.values)[0]
        if simple:
            (parts,) = loaded
            return self._combined(lowering, expr, parts, acc)
        means, m2s = loaded
        return self._merged_statistics(lowering, expr, means, m2s, acc)

    def _load_parts(self, lowering: Lowering, expr: Expr, index: Index, hints: Sequence[str]) -> list[str]:
        """The [ROWS, PARTS] partials of `expr` at the rows `index` is at (0 past the last part)."""
        positions = kept_positions(self.space.kept, index, lowering.values[expr.inputs[0]].rank)
        row = self.tile.row
        if positions != [self.tile.positions[d] for d in self.space.kept]:  # at other rows than the tile's
            row = lowering.assign(linearize(positions, self.space.row_shape), "row")
        mask = lowering.mask_text(index.mask | self.part_mask)
        loaded = []
        for (buffer, slot), hint in zip(self.slots[expr], hints, strict=True):
            offset = partial_offset(
                slot, self.space.rows, self.split.parts, row, self.part, self.split.part_major
            )
            load = f"tl.load({pointer(buffer)} + {offset}" + (f", mask={mask}, other=0)" if mask else ")")
            loaded.append(lowering.assign(load, hint))
        return loaded

    def _merged_pair(self, lowering: Lowering, row_max: Expr, exp_sum: Expr, index: Index) -> dict[str, str]:
        """A softmax pair from its parts' (m_i, s_i): M = max(m_i), S = sum(s_i * exp(m_i - M))."""
        (maxima,) = self._load_parts(lowering, row_max, index, ["max_parts"])
        (sums,) = self._load_parts(lowering, exp_sum, index, ["sum_parts"])
        if self.part_mask:  # parts past the last hold nothing: a max of -inf and a sum of 0
            (pmask,) = self.part_mask
            maxima = lowering.assign(f'tl.where({pmask}, {maxima}, float("-inf"))', "max_parts")
        row_max_text = lowering.assign(f"{REDUCE[Op.MAX].format(maxima)}[:, None]", "row_max")
        shift = lowering.assign(f'tl.where({row_max_text} == float("-inf"), 0.0, {row_max_text})', "shift")
        total = lowering.assign(f"tl.sum({sums} * tl.exp({maxima} - {shift}), axis=1)[:, None]", "row_sum")
        return finish_softmax_pair(lowering, row_max, exp_sum, row_max_text, total)

    def _combined(self, lowering: Lowering, expr: Expr, parts: str, acc: DataType) -> dict[str, str]:
        out = lowering.values[expr.outputs[0]]
        hint = out.name.lower()
        fill = neutral(expr.op, acc)
        if self.part_mask and fill != "0":  # masked loads already read 0 past the last part
            (pmask,) = self.part_mask
            parts = lowering.assign(f"tl.where({pmask}, {parts}, {fill})", f"{hint}_parts")
        total = lowering.assign(f"{REDUCE[expr.op].format(parts)}[:, None]", hint, describe(expr))
        return {out.name: lowering.assign(convert(total, acc, out.dtype), hint)}

    def _merged_statistics(
        self, lowering: Lowering, expr: Expr, means: str, m2s: str, stats: DataType
    ) -> dict[str, str]:
        """The row's mean and sum of squared deviations from its parts' (n_i, mean_i, M2_i)."""
        count, parts, length, part = self.space.cols, self.split.parts, self.split.length, self.part
        last = count - (parts - 1) * length
        sizes = f"tl.where({part} == {parts - 1}, {float(last)}, 0.0)"  # parts past the last hold nothing
        sizes = f"tl.where({part} < {parts - 1}, {float(length)}, {sizes})"
        if stats is DataType.Double:
            sizes = f"{sizes}.to(tl.float64)"
        sizes = lowering.assign(sizes, "part_sizes")
        # The parts' means weighted by their shares of the row, as offsets from the first part's (a sum of
        # sizes * means overflows near the largest float; equal means give that mean exactly); where the
        # offsets overflow (a row holding both ends of the range), the weighted means themselves.
        shares = lowering.assign(f"{sizes} / {float(count)}", "part_shares")
        first = lowering.assign(f"tl.sum(tl.where({part} == 0, {means}, 0.0), axis=1)[:, None]", "first_mean")
        offsets = lowering.assign(f"tl.sum({shares} * ({means} - {first}), axis=1)[:, None]", "mean_offsets")
        weighted = f"tl.sum({shares} * {means}, axis=1)[:, None]"
        mean = lowering.assign(
            f'tl.where(tl.abs({offsets}) < float("inf"), {first} + {offsets}, {weighted})',
            "mean",
            describe(expr),
        )
        deviation = lowering.assign(f"{means} - {mean}", "deviation")
        m2 = lowering.assign(f"tl.sum({m2s} + {sizes} * {deviation} * {deviation}, axis=1)[:, None]", "m2")
        return statistics(lowering, expr, mean, m2, count)


def used_arguments(names: Sequence[str], part: Part, tensors: set[str]) -> tuple[str, ...]:
    """The arguments a part's lines read: a tensor by its pointer, a scalar by its name."""
    words = set(re.findall(r"\w+", "\n".join(part.lines)))
    return tuple(n for n in names if (pointer(n) if n in tensors else n) in words)
