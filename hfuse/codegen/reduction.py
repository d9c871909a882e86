"""Reduction and normalization kernels: rows are the kept dims, columns the reduced dims.

A program owns a [ROWS, COLS] tile: `rows` indexes the product of the kept dims, `cols` that of the
reduced dims, and every value is lowered at (row, column) positions. Reductions sum along axis 1
and stay [ROWS, 1], so using a row statistic in a later elementwise op broadcasts it back.

- Persistent (the reduced extent fits one block): one column block for the whole program; a value
  used by several reductions and by the outputs is loaded once (softmax, layer norm, RMS norm). Rows
  a loop would read twice stay whole longer (`reduction_parts`).
- Looped (longer rows): each reduction is a loop over column blocks into a [ROWS, COLS]
  accumulator, and the full-shape outputs are a last loop. Row statistics are hoisted out of the
  loops that use them, so a norm is two or three passes. A row max M of x with the sum of exp(x - M)
  is one online pass (the sum is rescaled whenever the running max grows), so softmax and
  log-softmax read a long row twice (statistics, write) instead of three times.
- Outer reductions (the kept dims are contiguous in memory): ROWS is wide so each column step
  loads contiguous rows; Triton's coalescing follows the contiguous axis of the tile.
- Few long rows (a full reduction has one): `split` reduces parts of each row in many programs into
  partials, then combines them in a second launch; `RowReducer.partials` lowers the first.
  Otherwise one program loops over its rows' columns (one launch, no atomics).
VAR, VAR_MEAN and WELFORD are the mean, then the centered sum of squares.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from hfuse.codegen.code import Body, Scope
from hfuse.codegen.emit import compute_type, convert
from hfuse.codegen.indexing import delinearize
from hfuse.codegen.kernel import INT32_LIMIT, Part, cdiv, next_power_of_2
from hfuse.codegen.lower import Index, Lowering, describe, laid_out_as
from hfuse.codegen.options import Options
from hfuse.codegen.rows import (
    RowSpace,
    kept_positions,
    row_space,
    rows_aligned,
    store_row_outputs,
    streamed_inputs,
    tile_rows,
)
from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Expr, Fusion, Op, Value, contiguous_strides
from hfuse.layout import innermost_dim
from hfuse.ops import op_def
from hfuse.segment.model import Group

# max and min: NaN wins, as in torch (tl.max, tl.min and a plain tl.maximum skip it)
REDUCE = {Op.SUM: "tl.sum({0}, axis=1)", Op.MAX: "_max_rows({0})", Op.MIN: "_min_rows({0})",
          Op.PROD: "tl.reduce({0}, 1, _multiply)"}  # fmt: skip
_COMBINE = {Op.SUM: "{0} + {1}", Op.PROD: "{0} * {1}",
            Op.MAX: "tl.maximum({0}, {1}, propagate_nan=tl.PropagateNan.ALL)",
            Op.MIN: "tl.minimum({0}, {1}, propagate_nan=tl.PropagateNan.ALL)"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Layout:
    rows: int  # rows per program
    cols: int  # columns per block
    persistent: bool
    outer: bool
    stages: int = 0  # of Triton's software pipeline over a looped row's column blocks (0: none)
    # each loop over the columns walks them the other way from the loop before (`Options.alternate_passes`)
    alternate: bool = False
    # a row's column blocks start at the element before its first whose offset is a multiple of `align`
    # (0: at its first): `RowReducer.column_blocks`
    align: int = 0


@dataclass(frozen=True, slots=True)
class Columns:
    positions: dict[int, str]  # reduced dim -> its position in this column block
    mask: frozenset[str]
    axis: str
    scope: Scope | None


@dataclass(frozen=True, slots=True)
class ColumnPart:
    """The columns one program of a split reduction reduces: `length` of them from column `start`; it is
    part `index` of `count` (all `length` long but the last, which ends at the row's end)."""

    start: str
    length: int
    index: str
    count: int


@dataclass(frozen=True, slots=True)
class Term:
    """One reduction of a pass over the columns: `op` of `element` (a value of type `source`) in `acc`."""

    op: Op
    element: Callable[[Index], str]
    source: DataType
    acc: DataType
    hint: str
    comment: str | None = None


def choose_layout(
    rows: int,
    cols: int,
    outer: bool,
    options: Options,
    rows_contiguous: bool = False,
    streams: int = 0,
    aligned: bool = True,
) -> Layout:
    """`rows_contiguous`: an output is contiguous along the kept dims while the loads run along the
    reduced ones, so a tile needs many rows for its stores to write whole memory segments. `streams`:
    the inputs read at every (row, column); `aligned`: their rows start at multiples of 16 bytes
    (`rows_aligned`)."""
    layout = _tiles(rows, cols, outer, options, rows_contiguous)
    if layout.persistent:
        return layout
    layout = dataclasses.replace(layout, alternate=outer and options.alternate_passes)
    if options.loop_stages:
        return dataclasses.replace(layout, stages=options.loop_stages)
    if outer and streams == 1 and aligned and cols >= options.outer_stages_min_cols:
        # One tile load a step leaves a program one tile of bytes in flight: the pipeline keeps the next
        # blocks' loads going (bias gradients of 16384 rows on the H200: bf16 54.9 -> 49.5 us, fp32
        # 65.8 -> 62.8). Two streamed inputs already keep two loads going; there the pipeline was slower
        # (RMSNorm backward's column sums 79.5 -> 85.2 us). Over 2048 rows the evidence was mixed, so
        # shorter reductions keep a plain loop until it is measured side by side. Where rows start at
        # offsets other than multiples of 16 bytes (no vector loads), the pipeline was far slower than a
        # plain loop: column centering of [16384, 4095] fp32 1160.6 -> 490.2 us, [12289, 3001] 664.6 -> 196.3.
        return dataclasses.replace(layout, stages=options.outer_stages)
    few_tiles = cdiv(rows, layout.rows) < options.inner_stages_below_tiles
    if not outer and options.inner_stages and (cols >= options.inner_stages_min_cols or few_tiles):
        return dataclasses.replace(layout, stages=options.inner_stages)
    return layout


def _tiles(rows: int, cols: int, outer: bool, options: Options, rows_contiguous: bool) -> Layout:
    whole = next_power_of_2(cols)
    if rows_contiguous and not outer and options.store_tile_rows:
        tile_rows = min(next_power_of_2(rows), options.store_tile_rows)
        if whole <= options.persistent_max_cols and tile_rows * whole <= 8 * options.row_tile:
            return Layout(tile_rows, whole, True, False)
        return Layout(tile_rows, max(1, min(whole, options.row_tile // tile_rows)), False, False)
    if outer:
        tile_rows = min(next_power_of_2(rows), options.transpose_tile)
        if whole <= options.persistent_max_cols and tile_rows * whole <= 4 * options.row_tile:
            tile_rows = min(next_power_of_2(rows), max(tile_rows, options.outer_min_tile // whole))
            return Layout(tile_rows, whole, True, True)
        return Layout(tile_rows, max(1, min(whole, options.outer_tile // tile_rows)), False, True)
    persistent = whole <= options.persistent_max_cols
    if not persistent and cols >= options.long_row_cols:
        block = options.longest_loop_cols if cols >= options.longest_row_cols else options.long_loop_cols
        return Layout(1, min(block, whole), False, False)
    block = whole if persistent else min(options.loop_cols, whole)
    return Layout(max(1, min(next_power_of_2(rows), options.row_tile // block)), block, persistent, False)


class RowReducer:
    """Lowers the reductions of one group for the program's tile of rows."""

    def __init__(
        self,
        body: Body,
        shape: tuple[int, ...],
        dims: tuple[int, ...],
        layout: Layout,
        row_positions: dict[int, str],
        row_mask: frozenset[str],
        wide: bool,
        part: ColumnPart | None = None,
        row: str = "",
    ) -> None:
        """`part`: the program reduces these columns of each row only (the first launch of a split
        reduction, always looped), else all of them. `row`: the program's one row, a scalar, which
        `layout.align` needs."""
        assert row or not layout.align, "aligned column blocks start from the program's row"
        self.body, self.shape, self.dims, self.layout, self.row = body, shape, dims, layout, row
        self.row_positions, self.row_mask, self.wide, self.part = row_positions, row_mask, wide, part
        self.count = math.prod(shape[d] for d in dims)
        self.column_axes: set[str] = set()
        self._persistent: Columns | None = None
        self.loads_first: tuple[str, ...] = ()  # inputs loaded at the top of each column block
        # with `layout.alternate`: whether the first pass walks the columns from the last block to the first
        self.first_backward = False
        self.passes = 0  # passes over the columns written so far
        self._online: dict[tuple[Expr, Expr], dict[str, str]] = {}  # (max, sum) -> both results

    @contextmanager
    def columns(self) -> Iterator[Columns]:
        """The positions of one column block: the program's only block, or the block of a new loop."""
        if self.layout.persistent:
            if self._persistent is None:
                self._persistent = self._define_columns("col", None, None)
            yield self._persistent
            return
        axis = f"loop{len(self.column_axes)}"
        start = self.body.fresh("start")
        self.body.deps[start] = frozenset({axis})
        scope = self.body.open_loop(axis)
        yield self._define_columns(axis, start, scope)
        self.body.close_loop(scope, *self._walk(start, axis, self._backward()))
        self.passes += 1

    def _backward(self) -> bool:
        """Whether this pass walks the columns backward: with `layout.alternate`, each pass starts where
        the pass before ended, on the blocks likeliest still in the L2 cache."""
        return self.layout.alternate and (self.passes % 2 == 1) != self.first_backward

    def column_blocks(self, lowering: Lowering) -> Iterator[Columns]:
        """The column blocks of one pass over the row: `columns()`'s, or with `layout.align` three loops,
        each yielded once for its body: the first block (masked before the row's first column), the blocks
        wholly inside the row (no mask), then the last ones (masked past its end), or these last to first
        in a pass walking backward. A row whose offset is no
        multiple of the vector width (a vocabulary of 50257) is then read and written in whole vectors
        from its second block on, at addresses Triton sees as aligned.

        The first and last loops end at the row's lead over its aligned start, which only the running
        program knows. With constant bounds the compiler made them straight-line code and interleaved
        it with the loops around it: a softmax over rows of 50257 bf16 took 167 registers a thread
        instead of 72, and 467 us instead of 347 on the H200."""
        if not self.layout.align:
            with self.columns() as columns:
                yield columns
            return
        block, count = self.layout.cols, self.count
        inside_end = count // block * block
        lead = self.body.assign(f"{self._row_start()} - {self._aligned_start()}", "lead")
        stages = f", num_stages={self.layout.stages}" if self.layout.stages else ""
        regions = (
            (f"range(0, {lead} + 1, {block})", ">= 0"),
            (f"tl.range({block}, {inside_end}, {block}{stages})", None),
            (f"range({inside_end}, {lead} + {count}, {block})", f"< {count}"),
        )
        loops = []
        for walk, bound in regions:
            axis = f"loop{len(self.column_axes)}"
            self.column_axes.add(axis)
            start = self.body.fresh("start")
            self.body.deps[start] = frozenset({axis})
            scope = self.body.open_loop(axis)
            aligned = self._aligned_start()
            flat = self.body.define(
                self.body.fresh("flat"), f"{aligned} + {start} + tl.arange(0, {block})[None, :]",
                self.body.deps_of(aligned) | {axis}, scope,
            )  # fmt: skip
            cols = self.body.optional(f"{flat} - {self._row_start()}", "cols")
            mask = frozenset()
            if bound is not None:
                mask = frozenset(
                    {self.body.define(self.body.fresh("cmask"), f"{cols} {bound}", frozenset({axis}), scope)}
                )
            digits = delinearize(cols, [self.shape[d] for d in self.dims])
            positions = {
                d: self.body.assign(text, f"c{d}") for d, text in zip(self.dims, digits, strict=True)
            }
            columns = Columns(positions, mask, axis, scope)
            # values laid out as the rows are read and written at `flat` itself
            lowering.name_linear(self.full_index(columns).dims, flat, self.shape, range(len(self.shape)))
            yield columns
            loops.append((scope, start, walk, bound is None))
        # The loops close once the pass is written, when the passes its values needed (written within it)
        # have closed theirs: only then is its place among them, and so its direction, known.
        backward = self._backward()
        for scope, start, walk, inside in reversed(loops) if backward else loops:
            if backward and inside:  # the same starts, from the last
                back = self.body.fresh("back")
                self.body.close_loop(scope, f"for {back} in {walk}:", [f"{start} = {inside_end} - {back}"])
            else:
                self.body.close_loop(scope, f"for {start} in {walk}:")
        self.passes += 1

    def _row_start(self) -> str:
        rows = self.row
        text = f"{rows}.to(tl.int64) * {self.count}" if self.wide else f"{rows} * {self.count}"
        return self.body.assign(text, "row_start")

    def _aligned_start(self) -> str:
        align = self.layout.align
        return self.body.assign(f"{self._row_start()} // {align} * {align}", "aligned_start")

    def _walk(self, start: str, axis: str, backward: bool) -> tuple[str, list[str]]:
        """The header of a loop over the column blocks, and the lines that define its block's first column
        `start` when the loop does not count it itself."""
        extent = self.part.length if self.part else self.count
        stages = self.layout.stages if extent <= INT32_LIMIT else 0
        if extent <= INT32_LIMIT and not backward:
            if stages:
                return f"for {start} in tl.range(0, {extent}, {self.layout.cols}, num_stages={stages}):", []
            return f"for {start} in range(0, {extent}, {self.layout.cols}):", []
        # Triton types a bound in [2**31, 2**32) as uint32 and compares it signed, and its loops count up
        # only: a loop over the blocks' numbers
        blocks = cdiv(extent, self.layout.cols)
        block = self.body.fresh("block")
        self.body.deps[block] = frozenset({axis})
        walk = f"tl.range(0, {blocks}, 1, num_stages={stages})" if stages else f"range(0, {blocks})"
        number = f"({blocks - 1} - {block})" if backward else block
        width = f"tl.full([], {self.layout.cols}, tl.int64)" if extent > INT32_LIMIT else self.layout.cols
        return f"for {block} in {walk}:", [f"{start} = {number} * {width}"]

    def _define_columns(self, axis: str, start: str | None, scope: Scope | None) -> Columns:
        self.column_axes.add(axis)
        base = f"tl.arange(0, {self.layout.cols})[None, :]"
        text = base if start is None else f"{start} + {base}"
        if self.part is not None:
            text = f"{self.part.start} + {text}"
        cols = self.body.define(
            self.body.fresh("cols"), f"({text}).to(tl.int64)" if self.wide else text, frozenset({axis}), scope
        )
        mask = frozenset()
        covered = self.part.length if self.part else self.layout.cols  # columns a loop runs over evenly
        if self.count % covered or not self.count:  # reducing an empty dim reads nothing
            mask = frozenset(
                {
                    self.body.define(
                        self.body.fresh("cmask"), f"{cols} < {self.count}", frozenset({axis}), scope
                    )
                }
            )
        positions = {}
        for d, text in zip(self.dims, delinearize(cols, [self.shape[d] for d in self.dims]), strict=True):
            positions[d] = self.body.assign(text, f"c{d}")
        return Columns(positions, mask, axis, scope)

    def full_index(self, columns: Columns, rows: dict[int, str] | None = None) -> Index:
        rows = rows or self.row_positions
        dims = tuple(
            columns.positions[d] if d in columns.positions else rows[d] for d in range(len(self.shape))
        )
        return Index(dims, self.row_mask | columns.mask)

    # ---- the Reducer protocol ---------------------------------------------------------------
    def reduce(self, lowering: Lowering, expr: Expr, index: Index) -> dict[str, str]:
        source = lowering.values[expr.inputs[0]]
        kept = [d for d in range(source.rank) if d not in self.dims]
        positions = kept_positions(kept, index, source.rank)
        if self.body.deps_of(" ".join(positions)) & self.column_axes:
            raise UnsupportedError(
                f"{expr.outputs[0]} is used at positions that move along the reduced dims; "
                "keep that use in another kernel"
            )
        rows = dict(zip(kept, positions, strict=True))
        if not self.layout.persistent:
            pair = softmax_pair(expr, lowering)
            if pair is not None:
                if pair not in self._online:  # the other of the pair may be used at other dims first
                    self._online[pair] = self._online_max_sum(lowering, *pair, rows)
                return self._online[pair]
        if expr.op.family is Op.SUM.family:
            out = lowering.values[expr.outputs[0]]
            (acc,) = partial_types(expr, lowering.values)
            (total,) = self._accumulate(lowering, rows, [self._term(lowering, expr)])
            return {out.name: lowering.assign(convert(total, acc, out.dtype), out.name.lower())}
        mean, m2 = self._mean_and_m2(lowering, expr, rows, str(float(self.count)))
        return statistics(lowering, expr, mean, m2, self.count)

    def partials(self, lowering: Lowering, exprs: Sequence[Expr]) -> dict[Expr, tuple[str, ...]]:
        """What this program's part of the columns gives each reduction of `exprs` for each row, in the
        types of `partial_types`: the part's sum, max, min or product, in one pass over the part; for
        VAR, VAR_MEAN and WELFORD the part's mean and sum of squared deviations from it; for a softmax
        pair, the part's max m and its sum of exp(x - m), in one online pass."""
        assert self.part is not None, "partials are the first launch of a split reduction"
        rows, part = self.row_positions, self.part
        found: dict[Expr, tuple[str, ...]] = {}
        pairs = dict(pair for expr in exprs if (pair := softmax_pair(expr, lowering)) is not None)
        for row_max, exp_sum in pairs.items():
            running_max, running_sum = self._online_running(lowering, row_max, rows)
            found[row_max], found[exp_sum] = (running_max,), (running_sum,)
        rest = [expr for expr in exprs if expr not in found]
        simple = [expr for expr in rest if expr.op.family is Op.SUM.family]
        if simple:
            totals = self._accumulate(lowering, rows, [self._term(lowering, expr) for expr in simple])
            found.update((expr, (total,)) for expr, total in zip(simple, totals, strict=True))
        moments = [expr for expr in rest if expr.op.family is not Op.SUM.family]
        last = self.count - (part.count - 1) * part.length
        count = str(float(part.length))
        if moments and last != part.length:
            sizes = f"{part.index} == {part.count - 1}, {float(last)}, {float(part.length)}"
            count = lowering.assign(f"tl.where({sizes})", "part_count")
        found.update((expr, self._mean_and_m2(lowering, expr, rows, count)) for expr in moments)
        return found

    def _term(self, lowering: Lowering, expr: Expr) -> Term:
        source = lowering.values[expr.inputs[0]]
        (acc,) = partial_types(expr, lowering.values)
        element = lambda full: lowering.value(source.name, full)  # noqa: E731
        return Term(expr.op, element, source.dtype, acc, expr.outputs[0].lower(), describe(expr))

    def _mean_and_m2(
        self, lowering: Lowering, expr: Expr, rows: dict[int, str], count: str
    ) -> tuple[str, str]:
        """The mean of each row's `count` elements, then the sum of their squared deviations from it. The
        mean sums the elements' differences from the row's (or part's) first element beside the elements
        themselves, in one pass: a row of the largest value does not overflow (as with torch's Welford
        update) and a row far from zero keeps its digits. Where the differences overflow (a row holding
        both ends of the range), or the first element lies farther from the mean than 0 does (an outlier:
        every difference is then as large as it, and so is their sum's rounding), the sum of the elements
        each divided by the count is the mean."""
        source = lowering.values[expr.inputs[0]]
        stats = _stats_type(source.dtype)
        element = lambda full: lowering.value(source.name, full)  # noqa: E731
        if not self.count:
            plain = Term(Op.SUM, element, source.dtype, stats, "total", describe(expr))
            (total,) = self._accumulate(lowering, rows, [plain])
            mean = lowering.assign(f"{total} / {count}", "mean")
        else:
            first = self.part.start if self.part else "0"
            at = dict(zip(self.dims, delinearize(first, [self.shape[d] for d in self.dims]), strict=True))
            positions = tuple(at[d] if d in at else rows[d] for d in range(len(self.shape)))
            shift = lowering.assign(
                convert(element(Index(positions, self.row_mask)), source.dtype, stats), "shift"
            )
            share = lowering.assign(f"1.0 / {count}", "share")

            def shifted(full: Index) -> str:
                return f"{convert(element(full), source.dtype, stats)} - {shift}"

            def scaled(full: Index) -> str:
                return f"{convert(element(full), source.dtype, stats)} * {share}"

            offsets, scaled_total = self._accumulate(
                lowering,
                rows,
                [
                    Term(Op.SUM, shifted, stats, stats, "offsets", describe(expr)),
                    Term(Op.SUM, scaled, stats, stats, "scaled"),
                ],
            )
            # the shifted sum's error follows |x - shift|: taken where the mean lies nearer the shift than 0
            finite = f'tl.abs({offsets}) < float("inf")'
            closer = f"({finite}) & (tl.abs({offsets}) <= tl.abs({scaled_total}) * {count})"
            mean = lowering.assign(
                f"tl.where({closer}, {shift} + {offsets} / {count}, {scaled_total})", "mean"
            )

        def squared(full: Index) -> str:
            centered = lowering.assign(f"{convert(element(full), source.dtype, stats)} - {mean}", "centered")
            return f"{centered} * {centered}"

        (m2,) = self._accumulate(lowering, rows, [Term(Op.SUM, squared, stats, stats, "m2")])
        return mean, m2

    def _online_max_sum(self, lowering: Lowering, row_max: Expr, exp_sum: Expr, rows: dict[int, str]):
        """M = max(x) and S = sum(exp(x - M)) over each row in one loop (`_online_running`)."""
        running_max, running_sum = self._online_running(lowering, row_max, rows)
        return finish_softmax_pair(lowering, row_max, exp_sum, running_max, running_sum)

    def _online_running(self, lowering: Lowering, row_max: Expr, rows: dict[int, str]) -> tuple[str, str]:
        """The running max m and sum of exp(x - m) of each row (of the program's part of it) after one
        loop: per column block, the running max grows to m' and the running sum becomes
        S * exp(m - m') + sum(exp(x - m')). Both float32."""
        body, layout = self.body, self.layout
        source = lowering.values[row_max.inputs[0]]
        shape = f"[{layout.rows}, 1]"
        running_max = body.define(
            body.fresh("row_max"), f'tl.full({shape}, float("-inf"), tl.float32)', frozenset(), body.top
        )
        running_sum = body.define(
            body.fresh("row_sum"), f"tl.zeros({shape}, tl.float32)", frozenset(), body.top
        )
        for columns in self.column_blocks(lowering):
            full = self.full_index(columns, rows)
            value = convert(lowering.value(source.name, full), source.dtype, DataType.Float)
            if not {"row", columns.axis} <= body.deps_of(value):  # one value a row (an expanded input)
                value = f"{value} + tl.zeros([{layout.rows}, {layout.cols}], tl.float32)"
            mask = lowering.mask_text(full.mask)
            if mask:
                value = f'tl.where({mask}, {value}, float("-inf"))'
            x = lowering.assign(value, "x")
            block_max = f"{REDUCE[Op.MAX].format(x)}[:, None]"
            grown = lowering.assign(_COMBINE[Op.MAX].format(running_max, block_max), "grown")
            # a row with nothing above -inf yet subtracts 0, so its sum stays 0 rather than nan
            shift = lowering.assign(f'tl.where({grown} == float("-inf"), 0.0, {grown})', "shift")
            block_sum = lowering.assign(f"tl.sum(_exp_summand({x} - {shift}), axis=1)[:, None]", "block_sum")
            body.statement(
                f"{running_sum} = {running_sum} * tl.exp({running_max} - {shift}) + {block_sum}",
                columns.scope,
            )
            body.statement(f"{running_max} = {grown}", columns.scope)
        return running_max, running_sum

    def masked_tile(
        self,
        lowering: Lowering,
        full: Index,
        columns: Columns,
        value: str,
        acc: DataType,
        fill: str,
        hint: str,
    ) -> str:
        """`value` (of type `acc`) as a whole [ROWS, COLS] tile of the column block `columns`, `fill` where
        `full`'s mask is off; named `<hint>_in`."""
        if not {"row", columns.axis} <= self.body.deps_of(value):
            value = f"{value} + tl.zeros([{self.layout.rows}, {self.layout.cols}], {compute_type(acc)})"
        mask = lowering.mask_text(full.mask)
        if mask:
            value = f"tl.where({mask}, {value}, {fill})"
        return lowering.assign(value, f"{hint}_in")

    def _accumulate(self, lowering: Lowering, rows: dict[int, str], terms: Sequence[Term]) -> list[str]:
        """Each term reduced over the columns, all in one pass: one [ROWS, 1] value a term."""
        layout, body = self.layout, self.body
        results: list[str] = []
        totals: dict[int, str] = {}  # each term's accumulator, over every loop of the pass
        for columns in self.column_blocks(lowering):
            full = self.full_index(columns, rows)
            for name in self.loads_first:  # every load of the step in flight before its math waits on one
                lowering.value(name, full)
            for k, term in enumerate(terms):
                fill = neutral(term.op, term.acc)
                element = convert(term.element(full), term.source, term.acc)
                value = self.masked_tile(lowering, full, columns, element, term.acc, fill, term.hint)
                if layout.persistent:
                    reduced = f"{REDUCE[term.op].format(value)}[:, None]"
                    results.append(lowering.assign(reduced, term.hint, term.comment))
                    continue
                if k not in totals:
                    totals[k] = body.define(
                        body.fresh(f"{term.hint}_acc"),
                        f"tl.full([{layout.rows}, {layout.cols}], {fill}, {compute_type(term.acc)})",
                        frozenset(),
                        body.top,
                    )
                body.statement(f"{totals[k]} = {_COMBINE[term.op].format(totals[k], value)}", columns.scope)
        for k, total in totals.items():
            term = terms[k]
            reduced = f"{REDUCE[term.op].format(total)}[:, None]"
            results.append(lowering.assign(reduced, term.hint, term.comment))
        return results


_BROADCASTS = (Op.BROADCAST_IN_DIM, Op.BROADCAST, Op.EXPAND)
_FULL_FLOATS = (DataType.Float, DataType.Double)


def softmax_pair(expr: Expr, lowering: Lowering) -> tuple[Expr, Expr] | None:
    """(M = max(x), sum(exp(x - M))) when `expr` is either of such a pair in the group, with the
    subtraction and exp in a full-precision float (an online sum rounds no differently), else None."""
    producers = lowering.producers
    if expr.op is Op.MAX:
        sums = (e for e in producers.values() if e.op is Op.SUM and _max_under_exp_sum(e, lowering) is expr)
        found = next(sums, None)
        return (expr, found) if found is not None else None
    if expr.op is Op.SUM:
        row_max = _max_under_exp_sum(expr, lowering)
        return (row_max, expr) if row_max is not None else None
    return None


def _max_under_exp_sum(exp_sum: Expr, lowering: Lowering) -> Expr | None:
    """M when `exp_sum` is sum(exp(x - broadcast(M))) with M = max(x) over the same dims, else None."""
    producers, values = lowering.producers, lowering.values
    exp = producers.get(exp_sum.inputs[0])
    diff = producers.get(exp.inputs[0]) if exp is not None and exp.op is Op.EXP else None
    if diff is None or diff.op is not Op.SUB:
        return None
    x, subtracted = diff.inputs
    row_max = producers.get(subtracted)
    while row_max is not None and row_max.op in _BROADCASTS:
        row_max = producers.get(row_max.inputs[0])
    if row_max is None or row_max.op is not Op.MAX or row_max.inputs[0] != x:
        return None
    if tuple(sorted(row_max.attr("dims", ()))) != tuple(sorted(exp_sum.attr("dims", ()))):
        return None
    if any(values[e.outputs[0]].dtype not in _FULL_FLOATS for e in (diff, exp)):
        return None
    return row_max


def finish_softmax_pair(
    lowering: Lowering, row_max: Expr, exp_sum: Expr, running_max: str, running_sum: str
) -> dict[str, str]:
    """The pair's outputs from each row's float32 max M and sum of exp(x - M)."""
    # exp(-inf - -inf) is nan in the reference: a row of -inf sums to nan there too
    total = lowering.assign(
        f'tl.where({running_max} == float("-inf"), float("nan"), {running_sum})',
        exp_sum.outputs[0].lower(),
        describe(exp_sum),
    )
    source = lowering.values[row_max.inputs[0]]
    max_out, sum_out = lowering.values[row_max.outputs[0]], lowering.values[exp_sum.outputs[0]]
    max_acc = _accumulator(Op.MAX, source.dtype, max_out.dtype)
    found_max = convert(running_max, DataType.Float, max_acc)
    return {
        max_out.name: lowering.assign(convert(found_max, max_acc, max_out.dtype), max_out.name.lower()),
        sum_out.name: lowering.assign(convert(total, DataType.Float, sum_out.dtype), sum_out.name.lower()),
    }


def partial_types(expr: Expr, values: Mapping[str, Value]) -> tuple[DataType, ...]:
    """The types a reduction accumulates in: one for SUM, MAX, MIN and PROD; the mean and the sum of
    squared deviations for VAR, VAR_MEAN and WELFORD."""
    source = values[expr.inputs[0]].dtype
    if expr.op.family is Op.SUM.family:
        return (_accumulator(expr.op, source, values[expr.outputs[0]].dtype),)
    return (_stats_type(source),) * 2


def statistics(lowering: Lowering, expr: Expr, mean: str, m2: str, count: int) -> dict[str, str]:
    """The outputs of a VAR, VAR_MEAN or WELFORD expr from the mean of `count` elements and the sum of
    their squared deviations from it. As torch's Welford mean, the mean of more than one element is NaN
    where an element is infinite (the squared deviations are NaN there)."""
    if count > 1:
        mean = lowering.assign(f"tl.where({m2} != {m2}, {m2}, {mean})", "mean")
    if expr.op is Op.WELFORD:
        return dict(zip(expr.outputs, (mean, m2, str(count)), strict=True))
    denominator = max(count - expr.attr("correction"), 0)
    var = lowering.assign(f"{m2} / {float(denominator)}", "var")
    return dict(zip(expr.outputs, (var, mean), strict=False))


def _stats_type(source: DataType) -> DataType:
    return DataType.Double if source is DataType.Double else DataType.Float


def _accumulator(op: Op, source: DataType, out: DataType) -> DataType:
    if op in (Op.MAX, Op.MIN):
        return DataType.Int32 if source is DataType.Bool else source
    if out.is_float:
        return DataType.Double if out is DataType.Double else DataType.Float
    return DataType.Int


def neutral(op: Op, dtype: DataType) -> str:
    if op is Op.SUM:
        return "0"
    if op is Op.PROD:
        return "1"
    if dtype.is_float:
        return 'float("-inf")' if op is Op.MAX else 'float("inf")'
    bits = 32 if dtype in (DataType.Int32, DataType.Bool) else 64
    return str(-(2 ** (bits - 1))) if op is Op.MAX else str(2 ** (bits - 1) - 1)


def warps(elements: int) -> int:
    if elements <= 256:
        return max(1, elements // 128)
    return 4 if elements < 2048 else 8 if elements < 8192 else 16


def loads_first(
    streams: Sequence[str], fusion: Fusion, shape: tuple[int, ...], options: Options
) -> tuple[str, ...]:
    """The streamed inputs a column block loads before its math, with `options.loads_first` (else as the
    math reaches them): those of the space's own shape, read at the block's positions."""
    if not options.loads_first:
        return ()
    return tuple(name for name in streams if fusion.value(name).shape == shape)


def row_alignment(group: Group, fusion: Fusion, space: RowSpace, layout: Layout, options: Options) -> int:
    """`Layout.align` for the one-launch row kernel: the elements in 16 bytes of the narrowest value laid
    out as the rows (read or written at the flat position row * columns + column), when a program loops
    over one row reduced along the innermost dims whose length is no multiple of that; else 0."""
    if not options.align_rows or layout.persistent or layout.outer or layout.rows != 1:
        return 0
    rank = len(space.shape)
    if tuple(space.dims) != tuple(range(rank - len(space.dims), rank)) or space.cols < 2 * layout.cols:
        return 0
    strides = contiguous_strides(space.shape)
    names = [*group.inputs, *space.full_outputs]
    flat = [v for v in map(fusion.value, names) if v.is_tensor and laid_out_as(v, space.shape, strides)]
    if not flat:
        return 0
    align = 16 // min(v.dtype.itemsize for v in flat)
    # the loops count to past the row's end, as literals that stay int32 (`RowReducer._walk`)
    if space.cols % align == 0 or cdiv(space.cols + align, layout.cols) * layout.cols > INT32_LIMIT:
        return 0
    return align


def layout_warps(layout: Layout) -> int:
    """Tiles of a few whole rows of 1024-2047 columns take 4 warps: 8 leave each thread too little work
    (scale + causal mask + softmax of bf16 rows of 1024, 4 rows a tile: 12% slower with 8). A program
    looping over one long row takes 4 too: its loop waits on a reduction across the program at every
    block, so more programs an SM keep more loads in flight (H200, 8 -> 4 warps: cross-entropy over 32000
    and 128256 bf16 columns 94.6 -> 81.6 and 340.7 -> 297.7 us, logsumexp over 50257 166.9 -> 131.1,
    softmax over 50257 521.2 -> 465.2; log-softmax over 128256 398.8 -> 400.1)."""
    if layout.persistent and not layout.outer and 1024 <= layout.cols < 2048 and layout.rows <= 4:
        return 4
    if not layout.persistent and not layout.outer and layout.rows == 1:
        return 4
    return warps(layout.rows * layout.cols)


def _row_kernel_warps(layout: Layout, fusion: Fusion, streams: Sequence[str], options: Options) -> int:
    """`layout_warps`, but at most as many threads as load 16 bytes each along the kept columns of a whole
    outer tile widened past `transpose_tile` kept columns (`Options.outer_min_tile`): a [1024, 4] tile
    of bf16 at 8 warps, two elements short of a vector each, took 42.1 us on the H200 where 4 took 14.2
    (column sum of [4, 4194304]; 16 warps 149.2)."""
    found = layout_warps(layout)
    if not (layout.outer and layout.persistent and layout.rows > options.transpose_tile and streams):
        return found
    narrowest = min(fusion.value(name).dtype.itemsize for name in streams)
    return max(1, min(found, layout.rows * narrowest // 16 // 32))


def row_layout(group: Group, fusion: Fusion, options: Options) -> tuple[RowSpace, Layout, tuple[str, ...]]:
    """The space of a reduction group's kernel, its tiles, and its streamed inputs (which they depend on)."""
    space = row_space(group, fusion)
    full = [fusion.value(name) for name in space.full_outputs]
    rows_contiguous = any(innermost_dim(value.shape, value.strides) in space.kept for value in full)
    streams = streamed_inputs(group, fusion)
    aligned = rows_aligned(fusion, streams)
    layout = choose_layout(
        space.rows, space.cols, space.outer, options, rows_contiguous, len(streams), aligned
    )
    return space, layout, streams


def reads_once(group: Group, space: RowSpace) -> bool:
    """Whether a kernel of `group` reads its streamed inputs once: it writes no full-shape output and its
    reductions are sums, maxima, minima or products (no statistics read back along the row)."""
    return not space.full_outputs and all(
        e.op.family is Op.SUM.family for e in group.exprs if op_def(e.op).reduces
    )


def softmax_pairs(group: Group, fusion: Fusion, reductions: Sequence[Expr]) -> set[tuple[Expr, Expr]]:
    """The group's (max(x), sum(exp(x - max(x)))) pairs, which a pass over the columns reduces
    online."""
    lowering = Lowering(fusion, group.exprs, group.inputs, Body())
    return {pair for expr in reductions if (pair := softmax_pair(expr, lowering)) is not None}


def reads_a_reduction(group: Group, reductions: Sequence[Expr], online: set[Expr]) -> bool:
    """Whether a reduction's input is computed in the group from another reduction's result (the sums of
    softmax pairs, `online`, aside: they read their max inside the pass)."""
    producers = {out: expr for expr in group.exprs for out in expr.outputs}
    reduced = {out for expr in reductions for out in expr.outputs}
    pending = [expr.inputs[0] for expr in reductions if expr not in online]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen or name in group.inputs or name not in producers:
            continue
        seen.add(name)
        if name in reduced:
            return True
        pending.extend(producers[name].inputs)
    return False


def rereads_rows(group: Group, fusion: Fusion, space: RowSpace) -> bool:
    """Whether a kernel of `group` looping over column blocks reads each row more than once: it writes
    full-shape outputs (a last pass after the statistics), computes moments (the mean, then the squared
    deviations from it), or reduces a value computed from another reduction's result."""
    reductions = [e for e in group.exprs if op_def(e.op).reduces]
    if space.full_outputs or any(e.op.family is not Op.SUM.family for e in reductions):
        return True
    online = {exp_sum for _, exp_sum in softmax_pairs(group, fusion, reductions)}
    return reads_a_reduction(group, reductions, online)


def reduction_parts(group: Group, fusion: Fusion, options: Options) -> list[Part]:
    """The one launch of a reduction group. A looped row a program that the loop would read more than
    once is kept whole up to `options.persistent_reread_cols`, when the whole-row kernel reads at most
    `options.persistent_reread_inputs` inputs along the row (each a tile of registers)."""
    space, layout, streams = row_layout(group, fusion, options)
    whole = next_power_of_2(space.cols)
    if (
        not layout.persistent
        and not layout.outer
        and layout.rows == 1  # tall tiles of rows (outputs contiguous along them) keep looping
        and whole <= options.persistent_reread_cols
        and rereads_rows(group, fusion, space)
    ):
        kept = _row_kernel(group, fusion, options, space, Layout(1, whole, True, False), streams)
        if kept.row_inputs <= options.persistent_reread_inputs:
            return [kept.part]
    return [_row_kernel(group, fusion, options, space, layout, streams).part]


@dataclass(frozen=True, slots=True)
class RowKernel:
    part: Part
    row_inputs: int  # inputs it loads at positions along the reduced dims


def _row_kernel(
    group: Group, fusion: Fusion, options: Options, space: RowSpace, layout: Layout, streams: tuple[str, ...]
) -> RowKernel:
    rows, cols = space.rows, space.cols
    body = Body()
    body.reserve("prog", "pid")
    tile = tile_rows(body, "prog", layout.rows, space)
    align = row_alignment(group, fusion, space, layout, options)
    if align:
        layout = dataclasses.replace(layout, align=align, stages=layout.stages or options.aligned_stages)
    if not layout.persistent and not layout.outer:  # the passes over a looped row alternate too
        layout = dataclasses.replace(layout, alternate=options.alternate_passes)
    row = ""
    if layout.align:  # one row a program: the program's number is its row
        row = "prog"
        body.deps[row] = frozenset({"row"})
    reducer = RowReducer(
        body, space.shape, space.dims, layout, tile.positions, tile.mask, space.wide, row=row
    )
    reducer.loads_first = loads_first(streams, fusion, space.shape, options)
    evict = streams if options.outer_evict_first and layout.outer and reads_once(group, space) else ()
    lowering = Lowering(
        fusion, group.exprs, group.inputs, body, wide_index=space.wide, reducer=reducer, evict_first=evict
    )
    store_row_outputs(lowering, space, tile)
    if space.full_outputs:
        for columns in reducer.column_blocks(lowering):
            for name in space.full_outputs:  # all extents 1 (one row, one column): the row spreads it
                lowering.store(name, reducer.full_index(columns), spread=tile.row)
    form = "persistent" if layout.persistent else "looped"
    part = Part(
        label=f"{', '.join(dict.fromkeys(group.outputs))}: {rows} rows x {cols} reduced columns, "
        f"{form}, [{layout.rows}, {layout.cols}] tiles" + (", outer" if layout.outer else ""),
        programs=cdiv(rows, layout.rows),
        lines=tuple(body.text()),
        num_warps=_row_kernel_warps(layout, fusion, streams, options),
        wide_index=space.wide,
        config={
            "ROWS": layout.rows,
            "COLS": layout.cols,
            "persistent": layout.persistent,
            "outer": layout.outer,
            "rows": rows,
            "cols": cols,
        },
    )
    along = {name for name, at in lowering.loaded if body.deps_of(" ".join(at.dims)) & reducer.column_axes}
    return RowKernel(part, len(along))
