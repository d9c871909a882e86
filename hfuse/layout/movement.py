"""What each movement op means: for every tensor operand, how its dims relate to the result's dims.

The movement ops (set, broadcast, broadcast_in_dim, expand, reshape, permute, squeeze, stride_order,
slice, pad, cat) and the implicit broadcast of an elementwise operand are each described, per tensor
operand, by runs that together cover the operand's and the result's dims:

- `Along(source, result, start, step)`: result dim `result` walks operand dim `source`; result
  position p reads operand position p * step + start. A slice has start >= 0; a pad's margins and
  the other pieces of a cat are the positions that fall outside the operand and read nothing of it.
- `Drop(source)`: an operand dim of extent 1 that no result dim walks (squeezed, or stretched by a
  broadcast): always read at 0.
- `New(result)`: a result dim the operand does not have (a broadcast): all its positions read the
  same operand elements.
- `Regroup(source, result)`: consecutive operand dims and consecutive result dims whose extents have
  equal products, holding the same elements in the same row-major order (a run of a reshape).

`movement` writes each op's runs once. The rest of this package derives from them what each stage
needs: the strides of a view (alias analysis), the operand index read at a result index (codegen,
and the tests), the operand elements a set of result elements reads (the byte counter), the dims a
result walks (the segmenter's dim links) and the result shape (inference).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hfuse.ir import Expr, Op, Value

MOVEMENT_OPS = frozenset({
    Op.SET, Op.BROADCAST_IN_DIM, Op.BROADCAST, Op.EXPAND, Op.RESHAPE, Op.PERMUTE, Op.SQUEEZE,
    Op.STRIDE_ORDER, Op.SLICE, Op.PAD, Op.CAT,
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Along:
    """Result dim `result` walks operand dim `source`: position p reads position p * step + start."""

    source: int
    result: int
    start: int = 0
    step: int = 1

    def inside(self, extent: int, result_extent: int) -> range:
        """The result positions that read inside an operand dim of `extent` (all of them unless the
        result pads or is a cat of several pieces)."""
        low = max(0, -(self.start // self.step))
        high = min(result_extent, -((self.start - extent) // self.step))
        return range(low, max(low, high))


@dataclass(frozen=True, slots=True)
class Drop:
    """Operand dim `source`, of extent 1, is walked by no result dim: it is read at 0."""

    source: int


@dataclass(frozen=True, slots=True)
class New:
    """Result dim `result` has no operand dim: every position along it reads the same elements."""

    result: int


@dataclass(frozen=True, slots=True)
class Regroup:
    """Consecutive operand dims `source` and result dims `result` with equal products of extents: the
    same elements in the same row-major order, split or merged differently."""

    source: tuple[int, ...]
    result: tuple[int, ...]


Run = Along | Drop | New | Regroup


@dataclass(frozen=True, slots=True)
class Movement:
    """How the result of a movement op (extents `result`) reads one operand (extents `source`)."""

    source: tuple[int, ...]
    result: tuple[int, ...]
    runs: tuple[Run, ...]


def movement(op: Op, attrs: Mapping[str, Any], shapes: Sequence[Sequence[int]]) -> tuple[Movement, ...]:
    """How the result of `op` reads each of its tensor operands (`shapes`, in order), given the op's
    attributes in the normalized form that inference gives them."""
    x = tuple(shapes[0])
    dims = range(len(x))
    match op:
        case Op.SET | Op.STRIDE_ORDER:
            return (Movement(x, x, tuple(Along(d, d) for d in dims)),)
        case Op.PERMUTE:
            order = attrs["dims"]
            return (Movement(x, tuple(x[d] for d in order), tuple(Along(d, r) for r, d in enumerate(order))),)
        case Op.SQUEEZE:
            kept = [d for d in dims if d not in attrs["dims"]]
            runs = [Drop(d) for d in dims if d in attrs["dims"]] + [Along(d, r) for r, d in enumerate(kept)]
            return (Movement(x, tuple(x[d] for d in kept), tuple(runs)),)
        case Op.BROADCAST:
            flags = attrs["is_broadcast_dim"]
            extents = iter(x)
            result = tuple(1 if is_new else next(extents) for is_new in flags)
            return (broadcast(x, result, [r for r, is_new in enumerate(flags) if not is_new]),)
        case Op.BROADCAST_IN_DIM:
            return (broadcast(x, attrs["shape"], attrs["broadcast_dims"]),)
        case Op.EXPAND:
            return (broadcast(x, attrs["shape"], dims),)
        case Op.RESHAPE:
            return (Movement(x, tuple(attrs["new_shape"]), regroup(x, attrs["new_shape"])),)
        case Op.SLICE:
            starts, ends, steps = attrs["starts"], attrs["ends"], attrs.get("strides") or (1,) * len(x)
            result = tuple(len(range(starts[d], ends[d], steps[d])) for d in dims)
            return (Movement(x, result, tuple(Along(d, d, starts[d], steps[d]) for d in dims)),)
        case Op.PAD:
            widths = attrs["pad_widths"]  # (left, right) pairs, innermost dim first
            left, right = [0] * len(x), [0] * len(x)
            for k in range(len(widths) // 2):
                left[-1 - k], right[-1 - k] = widths[2 * k], widths[2 * k + 1]
            result = tuple(x[d] + left[d] + right[d] for d in dims)
            return (Movement(x, result, tuple(Along(d, d, -left[d]) for d in dims)),)
        case Op.CAT:
            axis = attrs["dim"]
            result = tuple(sum(s[axis] for s in shapes) if d == axis else x[d] for d in dims)
            starts = itertools.accumulate((s[axis] for s in shapes[:-1]), initial=0)
            return tuple(
                Movement(tuple(s), result, tuple(Along(d, d, -start if d == axis else 0) for d in dims))
                for s, start in zip(shapes, starts, strict=True)
            )
    raise ValueError(f"{op!r} is not a movement op")


def movement_of(expr: Expr, values: Mapping[str, Value]) -> tuple[Movement, ...]:
    """`movement` of an expr of the IR: one per tensor operand."""
    shapes = [values[name].shape for name in expr.inputs if values[name].is_tensor]
    return movement(expr.op, expr.attr_dict, shapes)


def broadcast(shape: Sequence[int], result: Sequence[int], dims: Iterable[int]) -> Movement:
    """`shape` placed at the (increasing) result dims `dims`: an operand dim whose extent differs from
    its result dim's (an extent 1 stretched) is read at 0; result dims not in `dims` are new."""
    shape, result, dims = tuple(shape), tuple(result), tuple(dims)
    runs: list[Run] = [New(r) for r in range(len(result)) if r not in dims]
    for d, r in enumerate(dims):
        runs += [Along(d, r)] if shape[d] == result[r] else [Drop(d), New(r)]
    return Movement(shape, result, tuple(runs))


def implicit_broadcast(shape: Sequence[int], result: Sequence[int]) -> Movement:
    """An elementwise op's tensor operand of `shape` read at its result's index (numpy broadcasting:
    dims aligned on the right)."""
    return broadcast(shape, result, range(len(result) - len(shape), len(result)))


def regroup(shape: Sequence[int], new_shape: Sequence[int]) -> tuple[Regroup, ...]:
    """A reshape as the shortest runs of consecutive dims of `shape` and of `new_shape` with equal
    products, in order (an empty tensor is one run: its elements have no order to keep)."""
    if math.prod(shape) == 0:
        return (Regroup(tuple(range(len(shape))), tuple(range(len(new_shape)))),)
    if math.prod(shape) != math.prod(new_shape):
        raise ValueError(f"a reshape from {list(shape)} to {list(new_shape)} changes the element count")
    runs = []
    i = j = 0
    while i < len(shape) or j < len(new_shape):
        source, result, size, new_size = [], [], 1, 1
        if i < len(shape):
            source.append(i)
            size, i = shape[i], i + 1
        if j < len(new_shape):
            result.append(j)
            new_size, j = new_shape[j], j + 1
        while size != new_size:
            if size < new_size:
                source.append(i)
                size, i = size * shape[i], i + 1
            else:
                result.append(j)
                new_size, j = new_size * new_shape[j], j + 1
        runs.append(Regroup(tuple(source), tuple(result)))
    return tuple(runs)


def linked_dims(move: Movement) -> list[tuple[int, int]]:
    """(operand dim, result dim) pairs where the result dim walks the operand dim, by result dim: every
    `Along`, and each dim of extent > 1 that a reshape leaves whole."""
    pairs = []
    for run in move.runs:
        match run:
            case Along(source, result):
                pairs.append((source, result))
            case Regroup(source, result):
                split = [d for d in source if move.source[d] != 1]
                merged = [d for d in result if move.result[d] != 1]
                if len(split) == len(merged) == 1:
                    pairs.append((split[0], merged[0]))
    return sorted(pairs, key=lambda pair: pair[1])


def is_identity(move: Movement) -> bool:
    """Whether every result position reads the same position of the operand."""
    return move.source == move.result and all(
        (isinstance(run, Along) and (run.source, run.start, run.step) == (run.result, 0, 1))
        or (isinstance(run, Regroup) and run.source == run.result)
        for run in move.runs
    )
