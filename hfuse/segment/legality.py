"""Whether two groups can become one kernel (`can_fuse`) or share one launch (`can_share_launch`).

Both are pure: they look at the two groups, the fusion, and the other groups (for paths between
the two), and answer with a reason in plain words either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hfuse.ir import Expr, Fusion, Op
from hfuse.segment.analysis import Refusal
from hfuse.segment.graph import KERNEL_KINDS, GroupGraph, index_of
from hfuse.segment.model import Group, SchedulerKind


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    reason: str


def can_fuse(a: Group, b: Group, fusion: Fusion, others: Sequence[Group] = ()) -> Verdict:
    """Whether the exprs of `a` and `b` can be computed by one kernel. `others` are the remaining
    groups, needed to see whether merging would create a cycle."""
    return fuse_verdict(a, b, fusion, GroupGraph([a, b, *others], fusion))


def can_share_launch(a: Group, b: Group, fusion: Fusion, others: Sequence[Group] = ()) -> Verdict:
    """Whether `a` and `b` can run side by side in one launch, each on its part of the grid."""
    return share_verdict(a, b, GroupGraph([a, b, *others], fusion))


def fuse_verdict(a: Group, b: Group, fusion: Fusion, graph: GroupGraph) -> Verdict:
    producer, consumer = (b, a) if graph.edge_tensor(b, a) else (a, b)
    refusal = (
        _kind_refusal(producer, consumer, graph) or _hint_refusal(a, b, fusion) or _cycle_refusal(a, b, graph)
    )
    if refusal:
        return Verdict(False, refusal)
    fit = index_of(fusion).fit([*a.exprs, *b.exprs])
    if isinstance(fit, Refusal):
        return Verdict(False, fit.reason)
    return Verdict(True, f"one {fit.kind.value} kernel: {fit.note}")


def share_verdict(a: Group, b: Group, graph: GroupGraph) -> Verdict:
    for g in (a, b):
        if g.kind not in KERNEL_KINDS and g.kind is not SchedulerKind.HORIZONTAL:
            return Verdict(False, f"group {g.id} ({g.kind.value}) launches no generated kernel")
    for first, second in ((a, b), (b, a)):
        tensor = graph.edge_tensor(first, second)
        if tensor is not None:
            return Verdict(
                False,
                f"group {second.id} reads {tensor} written by group {first.id}: one launch cannot "
                "wait for its own results",
            )
        if graph.reaches(first.id, second.id):
            return Verdict(
                False,
                f"group {second.id} depends on group {first.id} through other kernels: one launch "
                "cannot wait for them",
            )
    return Verdict(True, f"groups {a.id} and {b.id} are independent: one launch, the grid split between them")


def _kind_refusal(producer: Group, consumer: Group, graph: GroupGraph) -> str | None:
    tensor = graph.edge_tensor(producer, consumer)
    for g in (producer, consumer):
        if g.kind is SchedulerKind.ALIAS:
            views = ", ".join(g.outputs)
            return (
                f"{views} {'is a view' if len(g.outputs) == 1 else 'are views'} of fusion inputs "
                "and need no kernel"
            )
        if g.kind is SchedulerKind.HORIZONTAL:
            return f"group {g.id} already shares its launch with independent kernels"
    if producer.kind is SchedulerKind.TORCH:
        op = producer.exprs[0].op.frontend_name
        what = tensor or producer.outputs[0]
        return f"{what} is produced by a torch op ({op}); generated kernels cannot call it"
    if consumer.kind is SchedulerKind.TORCH:
        op = consumer.exprs[0].op.frontend_name
        what = tensor or consumer.inputs[0]
        return f"{what} is read by a torch op ({op}), which takes its operands from global memory"
    return None


def _hint_refusal(a: Group, b: Group, fusion: Fusion) -> str | None:
    index = index_of(fusion)
    segment_sets = {e for e in (*a.exprs, *b.exprs) if e.op is Op.SEGMENT_SET}
    if not segment_sets:
        return None
    union = {*a.exprs, *b.exprs}
    ordered = sorted(segment_sets, key=index.position.__getitem__)
    return hint_refusal(ordered, lambda name: any(r in union for r in index.readers.get(name, ())))


def hint_refusal(segment_sets: Iterable[Expr], read_inside: Callable[[str], bool]) -> str | None:
    """The boundary a SEGMENT_SET of the union asks for, when the union reads its result."""
    for expr in segment_sets:
        if read_inside(expr.outputs[0]):
            return f"SEGMENT_SET asks for a boundary here: {expr.outputs[0]} = segment_set({expr.inputs[0]})"
    return None


def _cycle_refusal(a: Group, b: Group, graph: GroupGraph) -> str | None:
    for start, goal in ((a, b), (b, a)):
        through = graph.detour(start.id, goal.id)
        if through is not None:
            via = graph.groups[through]
            return (
                f"merging would create a cycle through group {through} (which computes "
                f"{', '.join(via.outputs)}): "
                f"it reads from group {start.id} and feeds group {goal.id}"
            )
    return None
