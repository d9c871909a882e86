"""Groups as a graph: what each group reads and writes, and which groups feed which."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hfuse.ir import Expr, Fusion, Value
from hfuse.ops import op_def
from hfuse.segment.analysis import Plan, Refusal, analyze, group_outputs
from hfuse.segment.model import Group, SchedulerKind

KERNEL_KINDS = frozenset({
    SchedulerKind.POINTWISE, SchedulerKind.TRANSPOSE, SchedulerKind.REDUCTION, SchedulerKind.NORMALIZATION,
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class FusionIndex:
    fusion: Fusion
    values: dict[str, Value]
    position: dict[Expr, int]
    readers: dict[str, list[Expr]]
    copied: dict[str, Expr]  # scalar value -> the scalar-only expr that every group reading it recomputes
    plans: dict[frozenset[int], Plan | Refusal] = field(default_factory=dict)  # by expr positions

    def plan(self, exprs: Sequence[Expr]) -> Plan | Refusal:
        key = frozenset(self.position[e] for e in exprs)
        if key not in self.plans:
            outputs = group_outputs(exprs, self.fusion, self.readers, self.copied)
            self.plans[key] = analyze(exprs, self.fusion, outputs)
        return self.plans[key]

    def with_scalar_chains(self, exprs: Iterable[Expr]) -> tuple[Expr, ...]:
        """`exprs` plus the copied scalar exprs they read, directly or through each other, in order."""
        chosen = set(exprs)
        stack = [name for e in chosen for name in e.inputs]
        while stack:
            producer = self.copied.get(stack.pop())
            if producer is not None and producer not in chosen:
                chosen.add(producer)
                stack.extend(producer.inputs)
        return tuple(sorted(chosen, key=self.position.__getitem__))


_LAST_INDEX: list[FusionIndex] = []


def index_of(fusion: Fusion) -> FusionIndex:
    """The index of `fusion`, kept for the fusion last asked about (segmenting asks many times)."""
    last = _LAST_INDEX[0] if _LAST_INDEX else None
    if last is not None and last.fusion is fusion:
        return last
    readers: dict[str, list[Expr]] = {}
    for expr in fusion.exprs:
        for name in dict.fromkeys(expr.inputs):
            readers.setdefault(name, []).append(expr)
    position = {e: i for i, e in enumerate(fusion.exprs)}
    index = FusionIndex(fusion, fusion.value_map, position, readers, _copied_scalars(fusion, readers))
    _LAST_INDEX[:] = [index]
    return index


def _copied_scalars(fusion: Fusion, readers: dict[str, list[Expr]]) -> dict[str, Expr]:
    """Scalar arithmetic (`reciprocal(S1)`, `S2 * S3`) is recomputed by each group that reads it, so
    that no kernel has to write a scalar. Scalars that are fusion outputs or feed a torch op keep a
    group of their own."""
    values = fusion.value_map
    outputs = set(fusion.output_names)
    copied = {}
    for expr in fusion.exprs:
        names = (*expr.inputs, *expr.outputs)
        if all(values[n].is_scalar for n in names) and not any(
            n in outputs or any(op_def(r.op).runs_in_torch for r in readers.get(n, ())) for n in expr.outputs
        ):
            copied.update(dict.fromkeys(expr.outputs, expr))
    return copied


def is_copied_scalar(expr: Expr, fusion: Fusion) -> bool:
    """Whether `expr` is scalar arithmetic that the groups reading it recompute (no group of its own)."""
    return bool(expr.outputs) and expr.outputs[0] in index_of(fusion).copied


def make_group(gid: int, exprs: Iterable[Expr], fusion: Fusion, *, branches: tuple[Group, ...] = ()) -> Group:
    """A group of `exprs` with its inputs, outputs, kind and iteration space worked out.
    With `branches` it is a HORIZONTAL group: those independent kernels in one launch.
    A kernel group also gets the scalar arithmetic it reads (see `_copied_scalars`)."""
    index = index_of(fusion)
    exprs = set(exprs)
    single_torch_op = len(exprs) == 1 and op_def(next(iter(exprs)).op).runs_in_torch
    ordered = tuple(sorted(exprs, key=index.position.__getitem__)) if single_torch_op else None
    ordered = ordered or index.with_scalar_chains(exprs)
    produced = {name for e in ordered for name in e.outputs}
    inputs = tuple(
        dict.fromkeys(
            name
            for e in ordered
            for name in e.inputs
            if name not in produced
            and not (index.values[name].is_scalar and index.values[name].const is not None)
        )
    )
    outputs = tuple(dict.fromkeys(group_outputs(ordered, fusion, index.readers, index.copied)))
    if branches:
        spaces = "; ".join(f"{b.kind.value} {b.space}" for b in branches)
        note = f"{len(branches)} independent kernels in one launch, the grid split among them: {spaces}"
        return Group(gid, SchedulerKind.HORIZONTAL, ordered, inputs, outputs, branches, note)
    if len(ordered) == 1 and op_def(ordered[0].op).runs_in_torch:
        note = f"{ordered[0].op.frontend_name} runs in torch"
        return Group(gid, SchedulerKind.TORCH, ordered, inputs, outputs, note=note)
    plan = index.plan(ordered)
    assert isinstance(plan, Plan), f"group {gid} was formed although {plan.reason}"
    return Group(gid, plan.kind, ordered, inputs, outputs, note=plan.note, space=plan.space)


class GroupGraph:
    """Which group produces each value, and the group-to-group edges."""

    def __init__(self, groups: Sequence[Group], fusion: Fusion) -> None:
        self.position = index_of(fusion).position
        self.groups = {g.id: g for g in groups}
        self.owner = {name: g.id for g in groups for e in g.exprs for name in e.outputs}
        self.successors: dict[int, set[int]] = {g.id: set() for g in groups}
        for g in groups:
            for name in g.inputs:
                if name in self.owner and self.owner[name] != g.id:
                    self.successors[self.owner[name]].add(g.id)

    def edge_tensor(self, producer: Group, consumer: Group) -> str | None:
        return next((n for n in consumer.inputs if self.owner.get(n) == producer.id), None)

    def detour(self, start: int, goal: int) -> int | None:
        """A group through which `start` reaches `goal` other than by a direct edge, or None."""
        for first in sorted(self.successors[start] - {goal}):
            stack, seen = [first], {first}
            while stack:
                current = stack.pop()
                if goal in self.successors[current]:
                    return first
                for nxt in self.successors[current] - seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return None

    def reaches(self, start: int, goal: int) -> bool:
        stack, seen = [start], {start}
        while stack:
            current = stack.pop()
            if current == goal:
                return True
            for nxt in self.successors[current] - seen:
                seen.add(nxt)
                stack.append(nxt)
        return False

    def execution_order(self) -> list[Group]:
        """Groups in a topological order; among ready groups, the one with the earliest expr first."""
        index_in = {gid: 0 for gid in self.groups}
        for targets in self.successors.values():
            for t in targets:
                index_in[t] += 1
        first_expr = {
            gid: min((self.position[e] for e in g.exprs), default=-1) for gid, g in self.groups.items()
        }
        ready = sorted((gid for gid, n in index_in.items() if n == 0), key=lambda gid: (first_expr[gid], gid))
        order = []
        while ready:
            gid = ready.pop(0)
            order.append(self.groups[gid])
            for t in self.successors[gid]:
                index_in[t] -= 1
                if index_in[t] == 0:
                    ready.append(t)
            ready.sort(key=lambda g: (first_expr[g], g))
        assert len(order) == len(self.groups), "the group graph has a cycle"
        return order
