"""Which dim of an expr's operand each dim of its result comes from.

Used to decide whether a pointwise kernel transposes (its output's innermost dim comes from a dim
of an input that is not that input's innermost) and whether a reduction result is broadcast back
along the right axes. Movements and elementwise broadcasting link the dims the layout algebra says
a result walks; reductions and indexing ops keep the dims they do not reduce or index.
"""

from __future__ import annotations

from dataclasses import dataclass

from hfuse.ir import Expr, Family, Op, Value
from hfuse.layout import MOVEMENT_OPS, implicit_broadcast, linked_dims, movement_of
from hfuse.ops import op_def

SAME_INDEX_OPS = frozenset({Op.SEGMENT_SET, Op.TRIU})  # read their operand at their own index


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
    if op_def(expr.op).reduces:
        return _reduction_links(expr, tensors[0], results)
    if expr.op in MOVEMENT_OPS:
        moves = movement_of(expr, values)
    elif is_elementwise(expr) or expr.op in SAME_INDEX_OPS:
        moves = tuple(implicit_broadcast(t.shape, out.shape) for t in tensors)
    else:
        return _indexing_links(expr, tensors[0], out)
    return [
        DimLink(t.name, in_dim, out.name, out_dim)
        for t, move in zip(tensors, moves, strict=True)
        for in_dim, out_dim in linked_dims(move)
    ]


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
