"""Which dim of an expr's operand each dim of its result comes from.

Used to decide whether a pointwise kernel transposes (its output's innermost dim comes from a dim
of an input that is not that input's innermost) and whether a reduction result is broadcast back
along the right axes.
"""

from __future__ import annotations

from dataclasses import dataclass

from hfuse.ir import Expr, Family, Op, Value
from hfuse.ops import op_def

SAME_DIM_OPS = frozenset(
    {Op.SET, Op.SEGMENT_SET, Op.STRIDE_ORDER, Op.SLICE, Op.PAD, Op.CAT, Op.TRIU, Op.EXPAND}
)


@dataclass(frozen=True, slots=True)
class DimLink:
    """Dim `out_dim` of output `output` runs along dim `in_dim` of operand `operand` (same extent
    unless a slice, pad or cat resizes it)."""

    operand: str
    in_dim: int
    output: str
    out_dim: int


def is_elementwise(expr: Expr) -> bool:
    return op_def(expr.op).is_elementwise and expr.op is not Op.SEGMENT_SET


def dim_links(expr: Expr, values: dict[str, Value]) -> list[DimLink]:
    tensors = [values[name] for name in expr.inputs if values[name].is_tensor]
    results = [values[name] for name in expr.outputs]
    if not tensors or not results[0].is_tensor:
        return []
    out = results[0]
    source = tensors[0]
    if is_elementwise(expr):
        return [
            DimLink(t.name, d - (out.rank - t.rank), out.name, d)
            for t in tensors
            for d in range(out.rank)
            if d >= out.rank - t.rank and t.shape[d - (out.rank - t.rank)] == out.shape[d]
        ]
    if expr.op in SAME_DIM_OPS:
        return [DimLink(t.name, d, out.name, d) for t in tensors for d in range(out.rank) if d < t.rank]
    if op_def(expr.op).reduces:
        return _reduction_links(expr, source, results)
    pairs = _view_pairs(expr, source, out)
    if pairs is None:
        return _indexing_links(expr, source, out)
    return [DimLink(source.name, i, out.name, o) for i, o in pairs]


def _reduction_links(expr: Expr, source: Value, results: list[Value]) -> list[DimLink]:
    reduced = set(expr.attr("dims"))
    kept = [d for d in range(source.rank) if d not in reduced]
    links = []
    for out in results:
        if out.rank == source.rank:  # keepdim
            links += [DimLink(source.name, d, out.name, d) for d in kept]
        else:
            links += [DimLink(source.name, d, out.name, i) for i, d in enumerate(kept)]
    return links


def _view_pairs(expr: Expr, source: Value, out: Value) -> list[tuple[int, int]] | None:
    """(operand dim, result dim) pairs of a view op; None for ops that are not views."""
    match expr.op:
        case Op.PERMUTE:
            return [(d, o) for o, d in enumerate(expr.attr("dims"))]
        case Op.BROADCAST_IN_DIM:
            return [
                (i, o) for i, o in enumerate(expr.attr("broadcast_dims")) if source.shape[i] == out.shape[o]
            ]
        case Op.BROADCAST:
            kept = [o for o, is_new in enumerate(expr.attr("is_broadcast_dim")) if not is_new]
            return list(enumerate(kept))
        case Op.SQUEEZE:
            dropped = set(expr.attr("dims"))
            kept = [d for d in range(source.rank) if d not in dropped]
            return [(d, o) for o, d in enumerate(kept)]
        case Op.RESHAPE:
            return _reshape_pairs(source.shape, out.shape)
    return None


def _reshape_pairs(shape: tuple[int, ...], new_shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """Dims a reshape leaves whole: same extent and the same number of elements after them."""

    def inner_sizes(s: tuple[int, ...]) -> list[int]:
        sizes, running = [], 1
        for extent in reversed(s):
            sizes.append(running)
            running *= extent
        return sizes[::-1]

    after_in, after_out = inner_sizes(shape), inner_sizes(new_shape)
    by_key = {(shape[d], after_in[d]): d for d in range(len(shape)) if shape[d] != 1}
    return [
        (by_key[(new_shape[o], after_out[o])], o)
        for o in range(len(new_shape))
        if new_shape[o] != 1 and (new_shape[o], after_out[o]) in by_key
    ]


def _indexing_links(expr: Expr, source: Value, out: Value) -> list[DimLink]:
    """Indexing ops keep every dim but the indexed one; SELECT drops it. Creation ops have no operand dims."""
    if expr.op.family is not Family.INDEXING or expr.attr("dim") is None:
        return []
    dim = expr.attr("dim")
    if expr.op is Op.SELECT:
        kept = [d for d in range(source.rank) if d != dim]
        return [DimLink(source.name, d, out.name, o) for o, d in enumerate(kept)]
    if source.rank != out.rank:
        return []
    return [DimLink(source.name, d, out.name, d) for d in range(out.rank) if d != dim]


def innermost_dim(shape: tuple[int, ...], strides: tuple[int, ...]) -> int | None:
    """The dim with the smallest non-zero stride among dims of extent > 1 (the last such on ties)."""
    candidates = [d for d in range(len(shape)) if shape[d] > 1 and strides[d] != 0]
    if not candidates:
        return None
    return min(candidates, key=lambda d: (strides[d], -d))
