"""Reduction and normalization kernels: rows are the kept dims, columns the reduced dims.

A program owns a [ROWS, COLS] tile: `rows` indexes the product of the kept dims, `cols` that of the
reduced dims, and every value is lowered at (row, column) positions. Reductions sum along axis 1
and stay [ROWS, 1], so using a row statistic in a later elementwise op broadcasts it back.

- Persistent (the reduced extent fits one block): one column block for the whole program; a value
  used by several reductions and by the outputs is loaded once (softmax, layer norm, RMS norm).
- Looped (longer rows): each reduction is a loop over column blocks into a [ROWS, COLS]
  accumulator, and the full-shape outputs are a last loop. Row statistics are hoisted out of the
  loops that use them, so a norm is two or three passes. A row max M of x with the sum of exp(x - M)
  is one online pass (the sum is rescaled whenever the running max grows), so softmax and
  log-softmax read a long row twice (statistics, write) instead of three times.
- Outer reductions (the kept dims are contiguous in memory): ROWS is wide so each column step
  loads contiguous rows; Triton's coalescing follows the contiguous axis of the tile.
- Full reductions (no kept dims): one program loops over everything (a single launch, no atomics).
VAR, VAR_MEAN and WELFORD are the mean, then the centered sum of squares.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from hfuse.codegen.code import Body, Scope
from hfuse.codegen.emit import compute_type, convert
from hfuse.codegen.indexing import delinearize
from hfuse.codegen.kernel import Part, cdiv, needs_wide_index, next_power_of_2
from hfuse.codegen.lower import REDUCING, Index, Lowering, describe
from hfuse.codegen.options import Options
from hfuse.codegen.probe import innermost_dim, load_axes
from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Expr, Fusion, Op
from hfuse.segment.model import Group

_REDUCE = {Op.SUM: "tl.sum({0}, axis=1)", Op.MAX: "tl.max({0}, axis=1)", Op.MIN: "tl.min({0}, axis=1)",
           Op.PROD: "tl.reduce({0}, 1, _multiply)"}  # fmt: skip
_COMBINE = {Op.SUM: "{0} + {1}", Op.PROD: "{0} * {1}", Op.MAX: "tl.maximum({0}, {1})",
            Op.MIN: "tl.minimum({0}, {1})"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Layout:
    rows: int  # rows per program
    cols: int  # columns per block
    persistent: bool
    outer: bool


@dataclass(frozen=True, slots=True)
class Columns:
    positions: dict[int, str]  # reduced dim -> its position in this column block
    mask: frozenset[str]
    axis: str
    scope: Scope | None


def reduced_dims(expr: Expr, rank: int) -> tuple[int, ...]:
    dims = tuple(sorted(expr.attr("dims", ())))
    if not dims and expr.op.family is not Op.SUM.family:
        return tuple(range(rank))  # var, var_mean and welford with no dims reduce everything
    return dims


def reduction_space(group: Group, fusion: Fusion) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape every reduction of the group reads and the dims they all reduce."""
    reductions = [e for e in group.exprs if e.op.family in REDUCING]
    if not reductions:
        raise UnsupportedError(f"group {group.id} is a {group.kind.value} group without a reduction")
    first = fusion.value(reductions[0].inputs[0])
    shape, dims = first.shape, reduced_dims(reductions[0], first.rank)
    for expr in reductions[1:]:
        source = fusion.value(expr.inputs[0])
        if source.shape != shape or reduced_dims(expr, source.rank) != dims:
            raise UnsupportedError(
                f"group {group.id} reduces {list(shape)} over dims {list(dims)} and also "
                f"`{describe(expr)}` over another space; one kernel reduces one space, so split the group"
            )
    return shape, dims


def choose_layout(
    rows: int, cols: int, outer: bool, options: Options, rows_contiguous: bool = False
) -> Layout:
    """`rows_contiguous`: an output is contiguous along the kept dims while the loads run along the
    reduced ones, so a tile needs many rows for its stores to write whole memory segments."""
    whole = next_power_of_2(cols)
    if rows_contiguous and not outer and options.store_tile_rows:
        tile_rows = min(next_power_of_2(rows), options.store_tile_rows)
        if whole <= options.persistent_max_cols and tile_rows * whole <= 8 * options.row_tile:
            return Layout(tile_rows, whole, True, False)
        return Layout(tile_rows, max(1, min(whole, options.row_tile // tile_rows)), False, False)
    if outer:
        tile_rows = min(next_power_of_2(rows), options.transpose_tile)
        if whole <= options.persistent_max_cols and tile_rows * whole <= 4 * options.row_tile:
            return Layout(tile_rows, whole, True, True)
        return Layout(tile_rows, max(1, min(whole, options.row_tile // tile_rows)), False, True)
    persistent = whole <= options.persistent_max_cols
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
    ) -> None:
        self.body, self.shape, self.dims, self.layout = body, shape, dims, layout
        self.row_positions, self.row_mask, self.wide = row_positions, row_mask, wide
        self.count = math.prod(shape[d] for d in dims)
        self.column_axes: set[str] = set()
        self._persistent: Columns | None = None
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
        scope = self.body.open_loop(axis, f"for {start} in range(0, {self.count}, {self.layout.cols}):")
        yield self._define_columns(axis, start, scope)
        self.body.close_loop(scope)

    def _define_columns(self, axis: str, start: str | None, scope: Scope | None) -> Columns:
        self.column_axes.add(axis)
        base = f"tl.arange(0, {self.layout.cols})[None, :]"
        text = base if start is None else f"{start} + {base}"
        cols = self.body.define(
            self.body.fresh("cols"), f"({text}).to(tl.int64)" if self.wide else text, frozenset({axis}), scope
        )
        mask = frozenset()
        if self.count % self.layout.cols or not self.count:  # reducing an empty dim reads nothing
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
        dims = reduced_dims(expr, source.rank)
        if source.shape != self.shape or dims != self.dims:
            raise UnsupportedError(f"this kernel reduces dims {list(self.dims)} of {list(self.shape)} only")
        kept = [d for d in range(source.rank) if d not in dims]
        positions = [index.dims[d] for d in kept] if len(index.dims) == source.rank else list(index.dims)
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
        element = lambda full: lowering.value(source.name, full)  # noqa: E731
        out = lowering.values[expr.outputs[0]]
        hint = out.name.lower()
        if expr.op.family is Op.SUM.family:
            acc = _accumulator(expr.op, source.dtype, out.dtype)
            total = self._accumulate(
                lowering, expr.op, element, rows, source.dtype, acc, describe(expr), hint
            )
            return {out.name: lowering.assign(convert(total, acc, out.dtype), hint)}
        stats = DataType.Double if source.dtype is DataType.Double else DataType.Float
        total = self._accumulate(
            lowering, Op.SUM, element, rows, source.dtype, stats, describe(expr), "total"
        )
        mean = lowering.assign(f"{total} / {float(self.count)}", "mean")

        def squared(full: Index) -> str:
            centered = lowering.assign(f"{convert(element(full), source.dtype, stats)} - {mean}", "centered")
            return f"{centered} * {centered}"

        m2 = self._accumulate(lowering, Op.SUM, squared, rows, stats, stats, None, "m2")
        if expr.op is Op.WELFORD:
            return dict(zip(expr.outputs, (mean, m2, str(self.count)), strict=True))
        denominator = max(self.count - expr.attr("correction"), 0)
        var = lowering.assign(f"{m2} / {float(denominator)}", "var")
        return dict(zip(expr.outputs, (var, mean), strict=False))

    def _online_max_sum(self, lowering: Lowering, row_max: Expr, exp_sum: Expr, rows: dict[int, str]):
        """M = max(x) and S = sum(exp(x - M)) over each row in one loop: per column block, the running max
        grows to m' and the running sum becomes S * exp(m - m') + sum(exp(x - m'))."""
        body, layout = self.body, self.layout
        source = lowering.values[row_max.inputs[0]]
        shape = f"[{layout.rows}, 1]"
        running_max = body.define(
            body.fresh("row_max"), f'tl.full({shape}, float("-inf"), tl.float32)', frozenset(), body.top
        )
        running_sum = body.define(
            body.fresh("row_sum"), f"tl.zeros({shape}, tl.float32)", frozenset(), body.top
        )
        with self.columns() as columns:
            full = self.full_index(columns, rows)
            value = convert(lowering.value(source.name, full), source.dtype, DataType.Float)
            mask = lowering.mask_text(full.mask)
            if mask:
                value = f'tl.where({mask}, {value}, float("-inf"))'
            x = lowering.assign(value, "x")
            grown = lowering.assign(f"tl.maximum({running_max}, tl.max({x}, axis=1)[:, None])", "grown")
            # a row with nothing above -inf yet subtracts 0, so its sum stays 0 rather than nan
            shift = lowering.assign(f'tl.where({grown} == float("-inf"), 0.0, {grown})', "shift")
            block_sum = lowering.assign(f"tl.sum(tl.exp({x} - {shift}), axis=1)[:, None]", "block_sum")
            body.statement(
                f"{running_sum} = {running_sum} * tl.exp({running_max} - {shift}) + {block_sum}",
                columns.scope,
            )
            body.statement(f"{running_max} = {grown}", columns.scope)
        # exp(-inf - -inf) is nan in the reference: a row of -inf sums to nan there too
        total = lowering.assign(
            f'tl.where({running_max} == float("-inf"), float("nan"), {running_sum})',
            exp_sum.outputs[0].lower(),
            describe(exp_sum),
        )
        max_out, sum_out = lowering.values[row_max.outputs[0]], lowering.values[exp_sum.outputs[0]]
        max_acc = _accumulator(Op.MAX, source.dtype, max_out.dtype)
        found_max = convert(running_max, DataType.Float, max_acc)
        return {
            max_out.name: lowering.assign(convert(found_max, max_acc, max_out.dtype), max_out.name.lower()),
            sum_out.name: lowering.assign(
                convert(total, DataType.Float, sum_out.dtype), sum_out.name.lower()
            ),
        }

    def _accumulate(
        self,
        lowering: Lowering,
        op: Op,
        element: Callable[[Index], str],
        rows: dict[int, str],
        source: DataType,
        acc: DataType,
        comment: str | None,
        hint: str,
    ) -> str:
        layout, body = self.layout, self.body
        acc_type = compute_type(acc)
        neutral = _neutral(op, acc)
        with self.columns() as columns:
            full = self.full_index(columns, rows)
            value = convert(element(full), source, acc)
            if not {"row", columns.axis} <= body.deps_of(value):
                value = f"{value} + tl.zeros([{layout.rows}, {layout.cols}], {acc_type})"
            mask = lowering.mask_text(full.mask)
            if mask:
                value = f"tl.where({mask}, {value}, {neutral})"
            value = lowering.assign(value, f"{hint}_in")
            if layout.persistent:
                return lowering.assign(f"{_REDUCE[op].format(value)}[:, None]", hint, comment)
            total = body.define(
                body.fresh(f"{hint}_acc"),
                f"tl.full([{layout.rows}, {layout.cols}], {neutral}, {acc_type})",
                frozenset(),
                body.top,
            )
            body.statement(f"{total} = {_COMBINE[op].format(total, value)}", columns.scope)
        return lowering.assign(f"{_REDUCE[op].format(total)}[:, None]", hint, comment)


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


def _accumulator(op: Op, source: DataType, out: DataType) -> DataType:
    if op in (Op.MAX, Op.MIN):
        return DataType.Int32 if source is DataType.Bool else source
    if out.is_float:
        return DataType.Double if out is DataType.Double else DataType.Float
    return DataType.Int


def _neutral(op: Op, dtype: DataType) -> str:
    if op is Op.SUM:
        return "0"
    if op is Op.PROD:
        return "1"
    if dtype.is_float:
        return 'float("-inf")' if op is Op.MAX else 'float("inf")'
    bits = 32 if dtype in (DataType.Int32, DataType.Bool) else 64
    return str(-(2 ** (bits - 1))) if op is Op.MAX else str(2 ** (bits - 1) - 1)


def _is_outer(group: Group, fusion: Fusion, shape: tuple[int, ...], dims: tuple[int, ...]) -> bool:
    first = next(e for e in group.exprs if e.op.family in REDUCING)
    weight: dict[int, int] = {}
    for value, axis in load_axes(fusion, group.exprs, group.inputs, shape, [first.inputs[0]]):
        if axis is not None:
            weight[axis] = weight.get(axis, 0) + value.nbytes
    return bool(weight) and max(weight, key=lambda axis: weight[axis]) not in dims


def _warps(elements: int) -> int:
    if elements <= 256:
        return max(1, elements // 128)
    return 4 if elements < 2048 else 8 if elements < 8192 else 16


def reduction_parts(group: Group, fusion: Fusion, options: Options) -> list[Part]:
    shape, dims = reduction_space(group, fusion)
    kept = [d for d in range(len(shape)) if d not in dims]
    keepdim_shape = tuple(1 if d in dims else e for d, e in enumerate(shape))
    row_shape = tuple(shape[d] for d in kept)
    full_outputs, row_outputs = [], []
    for name in dict.fromkeys(group.outputs):
        value = fusion.value(name)
        if value.shape == shape:
            full_outputs.append(name)
        elif value.shape in (row_shape, keepdim_shape):
            row_outputs.append(name)
        else:
            raise UnsupportedError(
                f"group {group.id} reduces {list(shape)} over dims {list(dims)}, "
                f"but writes {value.describe()}, which is neither that shape nor one value per row; "
                "write it from another kernel"
            )
    rows, cols = math.prod(row_shape), math.prod(shape[d] for d in dims)
    rows_contiguous = any(innermost_dim(fusion.value(name)) in kept for name in full_outputs)
    layout = choose_layout(rows, cols, _is_outer(group, fusion, shape, dims), options, rows_contiguous)
    values = [fusion.value(n) for n in (*group.inputs, *group.outputs)]
    wide = needs_wide_index(values, rows * cols)

    body = Body()
    body.reserve("prog", "pid")
    start = "prog" if layout.rows == 1 else f"prog * {layout.rows}"
    row = body.define("rows", f"{start} + tl.arange(0, {layout.rows})[:, None]", frozenset({"row"}))
    row_mask = frozenset()
    if rows % layout.rows:
        row_mask = frozenset({body.define("rmask", f"rows < {rows}", frozenset({"row"}))})
    row_positions = {
        d: body.assign(text, f"r{d}") for d, text in zip(kept, delinearize(row, list(row_shape)), strict=True)
    }
    reducer = RowReducer(body, shape, dims, layout, row_positions, row_mask, wide)
    lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=wide, reducer=reducer)
    for name in row_outputs:
        value = fusion.value(name)
        if value.shape == row_shape:
            positions = tuple(row_positions[d] for d in kept)
        else:
            positions = tuple(row_positions.get(d, "0") for d in range(len(shape)))
        lowering.store(name, Index(positions, row_mask), spread=row)
    if full_outputs:
        with reducer.columns() as columns:
            for name in full_outputs:  # all extents 1 (one row, one column): the row spreads the address
                lowering.store(name, reducer.full_index(columns), spread=row)
    form = "persistent" if layout.persistent else "looped"
    return [
        Part(
            label=f"{', '.join(dict.fromkeys(group.outputs))}: {rows} rows x {cols} reduced columns, "
            f"{form}, [{layout.rows}, {layout.cols}] tiles" + (", outer" if layout.outer else ""),
            programs=cdiv(rows, layout.rows),
            lines=tuple(body.text()),
            num_warps=_warps(layout.rows * layout.cols),
            wide_index=wide,
            config={
                "ROWS": layout.rows,
                "COLS": layout.cols,
                "persistent": layout.persistent,
                "outer": layout.outer,
                "rows": rows,
                "cols": cols,
            },
        )
    ]
