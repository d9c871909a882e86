"""What one kernel made of a set of exprs would iterate over, or why no kernel can compute them.

A kernel has one iteration space. Without reductions it computes every value it writes at every
index of one shape. With reductions, all of them reduce the same dims of same-shaped tensors and
the kernel handles one row (one index of the kept dims) at a time: values computed from a
reduction result are "row" values (one per row) or, once broadcast back over the reduced dims,
"full" values (one per element of the row). Inside the row only elementwise ops work on them;
anything that moves elements (a permute, a slice, a gather) would need other rows or other
positions of the row, so it must read the value from global memory in another kernel. The one
exception is a gather of one element per row along the reduced dim at positions read from memory
(cross-entropy's picked log-probability): the program holding the row computes it there.
"""

from __future__ import annotations

import enum
from collections.abc import Container, Sequence
from dataclasses import dataclass

from hfuse.ir import Expr, Fusion, Op, Value
from hfuse.layout import innermost_dim, strides_for
from hfuse.ops import op_def
from hfuse.segment.dims import dim_links, is_elementwise
from hfuse.segment.model import IterSpace, SchedulerKind

RESHAPING_VIEWS = frozenset({Op.BROADCAST_IN_DIM, Op.BROADCAST, Op.EXPAND, Op.SQUEEZE, Op.RESHAPE})
ROW_PICKS = frozenset({Op.TAKE_ALONG_AXIS, Op.GATHER, Op.INDEX_SELECT})


class Role(enum.Enum):
    FREE = "free"  # does not depend on a reduction of this kernel: computable at any index
    ROW = "row"  # one value per row
    FULL = "full"  # computed from a row value, one per element of the reduced tensor


@dataclass(frozen=True, slots=True)
class Plan:
    kind: SchedulerKind
    space: IterSpace
    note: str


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: str


def fmt(value: Value) -> str:
    return f"{value.name} {list(value.shape)}" if value.is_tensor else value.name


def group_outputs(
    exprs: Sequence[Expr], fusion: Fusion, readers: dict[str, list[Expr]], copied: Container[str] = ()
) -> list[str]:
    """Values the exprs compute that a fusion output or an expr outside them needs. `copied` scalars
    are recomputed by every group that reads them: never written."""
    inside = set(exprs)
    fusion_outputs = set(fusion.output_names)
    return [
        name
        for e in exprs
        for name in e.outputs
        if name in fusion_outputs
        or (name not in copied and any(r not in inside for r in readers.get(name, ())))
    ]


def analyze(exprs: Sequence[Expr], fusion: Fusion, outputs: Sequence[str]) -> Plan | Refusal:
    """`exprs` in execution order; `outputs` the values the kernel would write."""
    values = fusion.value_map
    reductions = [e for e in exprs if op_def(e.op).reduces]
    written = [values[name] for name in outputs if values[name].is_tensor]
    if not reductions:
        return _pointwise_plan(exprs, values, written, fusion)
    first = reductions[0]
    space = _reduction_space(first, values)
    roles: dict[str, Role] = {}
    for expr in exprs:
        refusal = _assign_roles(expr, values, space, roles, first)
        if refusal is not None:
            return refusal
    for value in written:
        if value.shape != space.shape and not space.holds_row(value.shape):
            return Refusal(
                f"one kernel would write {fmt(value)}, which fits neither the reduced shape "
                f"{list(space.shape)} nor its rows {list(space.outer_shape)}"
            )
    return _reduction_plan(space, roles, first, exprs)


def _reduction_space(expr: Expr, values: dict[str, Value]) -> IterSpace:
    return IterSpace(values[expr.inputs[0]].shape, tuple(expr.attr("dims")))


def _pointwise_plan(
    exprs: Sequence[Expr], values: dict[str, Value], written: list[Value], fusion: Fusion
) -> Plan | Refusal:
    shapes = {v.shape for v in written}
    if len(shapes) > 1:
        first = written[0]
        other = next(v for v in written if v.shape != first.shape)
        return Refusal(
            f"one kernel would write {fmt(first)} and {fmt(other)}, which have different shapes "
            "(a pointwise kernel iterates over one shape)"
        )
    space = IterSpace(written[0].shape if written else ())
    mismatch = _transposed_input(exprs, values, written, fusion)
    if mismatch is None:
        return Plan(SchedulerKind.POINTWISE, space, f"elementwise and layout ops over {list(space.shape)}")
    out, out_dim, source, in_dim = mismatch
    return Plan(
        SchedulerKind.TRANSPOSE,
        space,
        f"the innermost dim {out_dim} of {out} comes from dim {in_dim} of {source}, which is not its "
        "innermost: tiles are transposed so reads and writes both stay coalesced",
    )


def _transposed_input(
    exprs: Sequence[Expr], values: dict[str, Value], written: list[Value], fusion: Fusion
) -> tuple[str, int, str, int] | None:
    """An (output, dim, input, dim) where the output's innermost dim runs along a non-innermost dim of
    an input the kernel reads, or None."""
    links_by_result: dict[str, list] = {}
    for expr in exprs:
        for link in dim_links(expr, values):
            links_by_result.setdefault(link.output, []).append(link)
    produced = {name for expr in exprs for name in expr.outputs}
    stride_orders = {o.name: o.stride_order for o in fusion.outputs if o.stride_order is not None}
    for out in written:
        if out.rank < 2:
            continue
        order = stride_orders.get(out.name)
        inner = innermost_dim(out.shape, out.strides if order is None else strides_for(out.shape, order))
        if inner is None:
            continue
        stack, seen = [(out.name, inner)], set()
        while stack:
            name, dim = stack.pop()
            if (name, dim) in seen:
                continue
            seen.add((name, dim))
            if name in produced:
                links = links_by_result.get(name, ())
                stack.extend((link.operand, link.in_dim) for link in links if link.out_dim == dim)
                continue
            source = values[name]
            if (
                source.rank >= 2
                and source.shape[dim] > 1
                and innermost_dim(source.shape, source.strides) != dim
            ):
                return out.name, inner, name, dim
    return None


def _assign_roles(
    expr: Expr, values: dict[str, Value], space: IterSpace, roles: dict[str, Role], first: Expr
) -> Refusal | None:
    in_roles = [roles.get(name, Role.FREE) for name in expr.inputs]
    if op_def(expr.op).reduces:
        source = values[expr.inputs[0]]
        if _reduction_space(expr, values) != space:
            if in_roles[0] is not Role.FREE:
                return Refusal(
                    f"{expr.outputs[0]} = {expr.op.frontend_name}({source.name}) reduces over another "
                    f"axis a value computed from the reduction {first.outputs[0]}: a reduction followed "
                    "by a reduction of its result over another axis needs a grid-wide sync"
                )
            return Refusal(
                f"the reduction over dim {_dims(first)} of {fmt(values[first.inputs[0]])} and the one "
                f"over dim {_dims(expr)} of {fmt(source)} have different iteration spaces"
            )
        if in_roles[0] is Role.ROW:
            return Refusal(
                f"{expr.outputs[0]} reduces {source.name}, a row value of the reduction {first.outputs[0]}: "
                "a reduction of a reduction's result needs a grid-wide sync"
            )
        roles.update((name, Role.ROW) for name in expr.outputs)
        return None
    if all(r is Role.FREE for r in in_roles):
        return None
    out = values[expr.outputs[0]]
    if is_elementwise(expr):
        return _elementwise_role(expr, values, space, roles, in_roles, out)
    if expr.op in RESHAPING_VIEWS and in_roles[0] is Role.ROW and len(expr.outputs) == 1:
        return _broadcast_role(expr, values, space, roles, out)
    if expr.op in ROW_PICKS and _picks_one_per_row(expr, values, space, in_roles):
        roles[out.name] = Role.ROW
        return None
    moved = next(name for name, r in zip(expr.inputs, in_roles, strict=True) if r is not Role.FREE)
    return Refusal(
        f"{expr.outputs[0]} = {expr.op.frontend_name}({moved}) moves elements of {moved}, which is "
        f"computed from the reduction {first.outputs[0]} row by row; only elementwise ops (and a gather "
        f"of one element per row along the reduced dim) can follow a reduction in one kernel, so {moved} "
        "goes through global memory"
    )


def _picks_one_per_row(expr: Expr, values: dict[str, Value], space: IterSpace, in_roles: list[Role]) -> bool:
    """Whether `expr` gathers, from a value of the reduced shape, one element of each row along the reduced
    dim at positions read from memory: the program that holds the row computes it (cross-entropy's
    picked log-probability), so the full log-softmax need not be written."""
    source, out = values[expr.inputs[0]], values[expr.outputs[0]]
    return (
        space.reduced_dims == (expr.attr("dim"),)
        and in_roles[1] is Role.FREE
        and source.shape == space.shape
        and out.shape == space.keepdim_shape
    )


def _elementwise_role(
    expr: Expr,
    values: dict[str, Value],
    space: IterSpace,
    roles: dict[str, Role],
    in_roles: list[Role],
    out: Value,
) -> Refusal | None:
    if out.shape == space.shape:
        target, role = space.keepdim_shape, Role.FULL
    elif space.holds_row(out.shape):
        target, role = out.shape, Role.ROW
    else:
        return Refusal(
            f"{fmt(out)} combines values computed row by row but fits neither the rows "
            f"{list(space.outer_shape)} nor the reduced shape {list(space.shape)}"
        )
    for name, r in zip(expr.inputs, in_roles, strict=True):
        operand = values[name]
        if r is Role.ROW and operand.is_tensor:
            padded = (1,) * (len(target) - operand.rank) + operand.shape
            if padded != target:
                return Refusal(
                    f"{expr.outputs[0]} = {expr.op.frontend_name}(...) broadcasts the row value "
                    f"{fmt(operand)} along the wrong axes of {list(out.shape)}: it needs the shape "
                    f"{list(target)}"
                )
    roles[out.name] = role
    return None


def _broadcast_role(
    expr: Expr, values: dict[str, Value], space: IterSpace, roles: dict[str, Role], out: Value
) -> Refusal | None:
    source = values[expr.inputs[0]]
    in_axes, out_axes = _space_axes(source.shape, space), _space_axes(out.shape, space)
    consistent = in_axes is not None and out_axes is not None
    if consistent:
        carried = {link.in_dim: link.out_dim for link in dim_links(expr, values)}
        for d, extent in enumerate(source.shape):
            if extent > 1 and (d not in carried or in_axes[d] != out_axes[carried[d]]):
                consistent = False
    if not consistent:
        return Refusal(
            f"{expr.outputs[0]} = {expr.op.frontend_name}({source.name}) puts the row value "
            f"{fmt(source)} on other axes than the rows {list(space.outer_shape)} of the reduction"
        )
    roles[out.name] = Role.FULL if out.shape == space.shape else Role.ROW
    return None


def _space_axes(shape: tuple[int, ...], space: IterSpace) -> list[int] | None:
    """For a value of the row or full shape: the axis of the reduced tensor each of its dims runs along."""
    if shape in (space.shape, space.keepdim_shape):
        return list(range(len(shape)))
    if shape == space.outer_shape:
        return [d for d in range(len(space.shape)) if d not in space.reduced_dims]
    return None


def _reduction_plan(space: IterSpace, roles: dict[str, Role], first: Expr, exprs: Sequence[Expr]) -> Plan:
    broadcast_back = [e for e in exprs if any(roles.get(n) is Role.FULL for n in e.outputs)]
    if broadcast_back:
        return Plan(
            SchedulerKind.NORMALIZATION,
            space,
            f"{space}; the result of {first.outputs[0]} is broadcast back over the row "
            f"({broadcast_back[0]}), so the row stays on chip between the passes",
        )
    return Plan(SchedulerKind.REDUCTION, space, f"{space}")


def _dims(expr: Expr) -> str:
    return ", ".join(str(d) for d in expr.attr("dims"))
