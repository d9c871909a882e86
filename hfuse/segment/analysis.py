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

`kernel_state` keeps what the analysis found on the way (the roles, the walks from each written
value back to the inputs), so that the analysis of two merged kernels continues from theirs (see
`compose`) instead of starting over.
"""

from __future__ import annotations

import enum
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hfuse.ir import Expr, Op, Value
from hfuse.ops import op_def
from hfuse.segment.dims import dim_links, is_elementwise
from hfuse.segment.model import IterSpace, SchedulerKind

if TYPE_CHECKING:
    from hfuse.segment.graph import FusionIndex

RESHAPING_VIEWS = frozenset({Op.BROADCAST_IN_DIM, Op.BROADCAST, Op.EXPAND, Op.SQUEEZE, Op.RESHAPE})
ROW_PICKS = frozenset({Op.TAKE_ALONG_AXIS, Op.GATHER, Op.INDEX_SELECT})


class Role(enum.Enum):
    FREE = "free"  # does not depend on a reduction of this kernel: computable at any index
    ROW = "row"  # one value per row
    FULL = "full"  # computed from a row value, one per element of the reduced tensor


@dataclass(frozen=True, slots=True)
class KernelFit:
    """The one kernel that computes a set of exprs: its scheduler kind, its iteration space, why, and which
    of the values it writes hold one value per row (the others hold one per element of `space.shape`)."""

    kind: SchedulerKind
    space: IterSpace
    note: str
    row_outputs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: str


# an input a kernel reads, and the dim of it that an output's innermost dim runs along
Transposed = tuple[str, int]
WalkMemo = dict[tuple[str, int], Transposed | None]
# an output whose innermost dim runs along a non-innermost dim of an input: (its output key, its name,
# its innermost dim, the input and its dim)
TransposedOutput = tuple[tuple[int, int], str, int, Transposed]


@dataclass(slots=True)
class KernelState:
    """A kernel's fit and what was found on the way to it, kept so that merging two kernels continues
    their analyses instead of starting over (see `compose`). Positions are those of `FusionIndex`;
    "first" is in the order the exprs were analysed in (a group's own: by position)."""

    fit: KernelFit
    reduction: int | None  # the first reduction, whose space the kernel iterates over
    roles: dict[str, Role]  # every value of the kernel that is not free
    broadcast_back: int | None  # the first expr computing a full value from a row value
    transposed: TransposedOutput | None  # the first written output read transposed
    walks: WalkMemo  # memo of `first_transposed_input` over the kernel's values


def fmt(value: Value) -> str:
    return f"{value.name} {list(value.shape)}" if value.is_tensor else value.name


def analyze(positions: Sequence[int], index: FusionIndex, outputs: Sequence[str]) -> KernelFit | Refusal:
    """The fit of the exprs at `positions` (in execution order); `outputs` the values the kernel writes."""
    state = kernel_state(positions, index, outputs)
    return state if isinstance(state, Refusal) else state.fit


def kernel_state(
    positions: Sequence[int], index: FusionIndex, outputs: Sequence[str]
) -> KernelState | Refusal:
    """The analysis of the exprs at `positions`, in that order, kept as a state (or why no kernel can
    compute them)."""
    values = index.values
    reductions = [p for p in positions if op_def(index.exprs[p].op).reduces]
    written = [values[name] for name in outputs if values[name].is_tensor]
    if not reductions:
        produced = {name for p in positions for name in index.exprs[p].outputs}
        return pointwise_state(index, written, {}, produced)
    first = index.exprs[reductions[0]]
    space = IterSpace.reduced_by(first, values)
    roles: dict[str, Role] = {}
    for p in positions:
        refusal = assign_roles(index.exprs[p], values, space, roles, first)
        if refusal is not None:
            return refusal
    refusal = misfit(written, space)
    if refusal is not None:
        return refusal
    back = first_broadcast_back(index, positions, roles)
    return KernelState(
        reduction_fit(index, space, reductions[0], back, written), reductions[0], roles, back, None, {}
    )


def misfit(written: Sequence[Value], space: IterSpace) -> Refusal | None:
    for value in written:
        if value.shape != space.shape and not space.holds_row(value.shape):
            return Refusal(
                f"one kernel would write {fmt(value)}, which fits neither the reduced shape "
                f"{list(space.shape)} nor its rows {list(space.outer_shape)}"
            )
    return None


def first_broadcast_back(index: FusionIndex, positions: Sequence[int], roles: dict[str, Role]) -> int | None:
    """The first of the exprs at `positions` that computes a full value."""
    return next(
        (p for p in positions if any(roles.get(n) is Role.FULL for n in index.exprs[p].outputs)), None
    )


def pointwise_state(
    index: FusionIndex, written: Sequence[Value], walks: WalkMemo, produced: Container[str]
) -> KernelState | Refusal:
    """The state of a kernel without reductions writing `written`. The transposed-input walks look up and
    fill `walks`; `produced` says which values the kernel computes (see `first_transposed_input`)."""
    refusal = shape_refusal(written)
    if refusal is not None:
        return refusal
    space = IterSpace(written[0].shape if written else ())
    transposed = None
    for value in written:
        inner = index.stored_inner_dim(value.name)
        found = None if inner is None else first_transposed_input(index, (value.name, inner), walks, produced)
        if found is not None:
            transposed = (index.output_key[value.name], value.name, inner, found)
            break
    return KernelState(pointwise_fit(space, transposed), None, {}, None, transposed, walks)


def shape_refusal(written: Sequence[Value]) -> Refusal | None:
    """Why no kernel without reductions can write `written`, or None."""
    if len({v.shape for v in written}) < 2:
        return None
    first = written[0]
    other = next(v for v in written if v.shape != first.shape)
    return Refusal(
        f"one kernel would write {fmt(first)} and {fmt(other)}, which have different shapes "
        "(a pointwise kernel iterates over one shape)"
    )


def pointwise_fit(space: IterSpace, transposed: TransposedOutput | None) -> KernelFit:
    if transposed is None:
        return KernelFit(
            SchedulerKind.POINTWISE, space, f"elementwise and layout ops over {list(space.shape)}"
        )
    _, out, out_dim, (source, in_dim) = transposed
    return KernelFit(
        SchedulerKind.TRANSPOSE,
        space,
        f"the innermost dim {out_dim} of {out} comes from dim {in_dim} of {source}, which is not its "
        "innermost: tiles are transposed so reads and writes both stay coalesced",
    )


def first_transposed_input(
    index: FusionIndex, start: tuple[str, int], walks: WalkMemo, produced: Container[str]
) -> Transposed | None:
    """Walking back from dim `start[1]` of the kernel's value `start[0]` along the dims it comes from, the
    first input reached along a dim that is not its innermost (depth first, the last operand first), or None.
    `produced`: the values the kernel computes (the walk goes through them); `walks` memoizes the answer
    for every value and dim walked through."""
    if start in walks:
        return walks[start]
    frames: list[list] = [[start, None, 0]]
    while frames:
        frame = frames[-1]
        node, operands, i = frame
        if operands is None:
            if node[0] not in produced:
                walks[node] = node if index.read_transposed(*node) else None
                frames.pop()
                continue
            operands = frame[1] = index.operand_dims(*node)[::-1]
        found = None
        while i < len(operands):
            operand = operands[i]
            if operand not in walks:
                break
            found = walks[operand]
            if found is not None:
                break
            i += 1
        frame[2] = i
        if found is None and i < len(operands):
            frames.append([operands[i], None, 0])
            continue
        walks[node] = found
        frames.pop()
    return walks[start]


def assign_roles(
    expr: Expr, values: dict[str, Value], space: IterSpace, roles: dict[str, Role], first: Expr
) -> Refusal | None:
    in_roles = [roles.get(name, Role.FREE) for name in expr.inputs]
    if op_def(expr.op).reduces:
        source = values[expr.inputs[0]]
        if IterSpace.reduced_by(expr, values) != space:
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


def reduction_fit(
    index: FusionIndex, space: IterSpace, first: int, broadcast_back: int | None, written: Sequence[Value]
) -> KernelFit:
    """The fit of a kernel with reductions, named by its first reduction and its first expr computing a full
    value (positions). Its row outputs are in the order of the fusion, as a group's outputs are."""
    rows = tuple(
        sorted((v.name for v in written if v.shape != space.shape), key=index.output_key.__getitem__)
    )
    if broadcast_back is None:
        return KernelFit(SchedulerKind.REDUCTION, space, f"{space}", rows)
    return KernelFit(
        SchedulerKind.NORMALIZATION,
        space,
        f"{space}; the result of {index.exprs[first].outputs[0]} is broadcast back over the row "
        f"({index.exprs[broadcast_back]}), so the row stays on chip between the passes",
        rows,
    )


def _dims(expr: Expr) -> str:
    return ", ".join(str(d) for d in expr.attr("dims"))
