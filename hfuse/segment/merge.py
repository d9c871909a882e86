"""Merging groups until nothing merges: one loop drives the steps of `steps`.

- vertical: a producer group joins a consumer group along an edge (the data never leaves the chip);
- same space: independent groups with one iteration space become one kernel computing all their outputs;
- horizontal: independent groups with different spaces share one launch (a HORIZONTAL group whose
  branches split the grid).

`Merger.run` takes the steps in order, each until it finds nothing to merge, and goes back to the
first after a later step merged (a same-space merge can open vertical ones); the group graph stays a
DAG throughout. Each step merges the first legal pair in a fixed order: groups by their first expr
(then by id), pairs by their first group, then by the second (vertical: by the consumer's id). The
pairs wait in a worklist in that order, and a pair found illegal is dropped for good: while neither
of its groups changes it stays illegal, since merging other groups only adds paths between groups.
So only the pairs of each new group join the worklist (and, for the naive strategy's chain rule,
which looks at neighbours, the pairs around it): the merges are those of scanning every pair again
after each merge, at the cost of the pairs that changed.

The merger keeps what it needs of each live group (`Facts`) to work a merge out from the two sides:
what the union reads and writes, and its analysis continued from theirs (`compose`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hfuse.ir import Fusion, Op
from hfuse.segment.analysis import KernelState
from hfuse.segment.compose import merged_state
from hfuse.segment.graph import GroupGraph, index_of
from hfuse.segment.legality import hint_refusal
from hfuse.segment.model import Group, SchedulerKind

if TYPE_CHECKING:
    from hfuse.segment.steps import Step

Merged = tuple[Group, KernelState | None]  # a merged group, and the state of its fit for a kernel


@dataclass(slots=True)
class Facts:
    """What the merger keeps about a live group to work a merge out from its two sides."""

    first: int  # its earliest expr (copied scalar exprs included), -1 for none: the group's place in order
    own: list[int]  # its exprs but the copied scalar ones, in no order (a merge extends the larger list)
    copied: frozenset[int]  # its copied scalar exprs
    input_keys: dict[str, tuple[int, int]]  # each input -> (expr, operand) where the group first reads it
    segment_sets: tuple[int, ...]  # its SEGMENT_SET exprs
    state: KernelState | None  # for kernel groups


class Merger:
    """The current groups of one fusion; new groups get fresh ids.

    A group a merge makes gets its `exprs` only when it leaves the merger (`groups`, or as a branch of a
    launch): until then they are its facts' positions, so that a long run of merges into one group does
    not copy its exprs at every step.
    """

    def __init__(self, groups: list[tuple[Group, KernelState | None]], fusion: Fusion) -> None:
        """`groups`: each with the analysis state of its fit (None for groups that are not kernels)."""
        self.index = index_of(fusion)
        self.graph = GroupGraph([g for g, _ in groups], fusion)
        self.facts = {g.id: self._facts_of(g, state) for g, state in groups}
        self.ids = itertools.count(max((g.id for g, _ in groups), default=-1) + 1)
        self._without_exprs: set[int] = set()

    @property
    def groups(self) -> list[Group]:
        return [self._with_exprs(g) for g in self.graph.groups.values()]

    def _with_exprs(self, group: Group) -> Group:
        if group.id not in self._without_exprs:
            return group
        facts = self.facts[group.id]
        positions = sorted([*facts.own, *facts.copied])
        return dataclasses.replace(group, exprs=tuple(map(self.index.exprs.__getitem__, positions)))

    def rank(self, gid: int) -> tuple[int, int]:
        """A group's place in the order pairs are tried in."""
        return self.facts[gid].first, gid

    def run(self, steps: list[Step]) -> None:
        """Merges with each step in turn until none merges anything (see the module docstring)."""
        started: list[Step] = []
        current = 0
        while current < len(steps):
            step = steps[current]
            if step not in started:
                step.start(self)
                started.append(step)
            live, merged_any = self.graph.groups, False
            while (pair := step.next_pair(self)) is not None:
                a, b = pair
                merged = step.try_merge(self, live[a], live[b])
                if merged is None:
                    continue
                self._replace(a, b, *merged)
                for other in started:
                    other.merged(self, a, b, merged[0].id)
                merged_any = True
            current = 0 if merged_any and current > 0 else current + 1

    def _replace(self, a: int, b: int, merged: Group, state: KernelState | None) -> None:
        fa, fb = self.facts.pop(a), self.facts.pop(b)
        self._without_exprs -= {a, b}
        self._without_exprs.add(merged.id)
        self.graph.merge(a, b, merged)
        large, small = (fa, fb) if len(fa.own) >= len(fb.own) else (fb, fa)
        large.own += small.own
        keys = {}
        for name in merged.inputs:
            found = [k for k in (fa.input_keys.get(name), fb.input_keys.get(name)) if k is not None]
            keys[name] = min(found)
        first = min(fa.first, fb.first)
        copied, segment_sets = fa.copied | fb.copied, fa.segment_sets + fb.segment_sets
        self.facts[merged.id] = Facts(first, large.own, copied, keys, segment_sets, state)

    def _facts_of(self, g: Group, state: KernelState | None) -> Facts:
        positions = sorted(self.index.position[e] for e in g.exprs)
        keys: dict[str, tuple[int, int]] = {}
        wanted = set(g.inputs)
        for p in positions:
            for k, name in enumerate(self.index.exprs[p].inputs):
                if name in wanted and name not in keys:
                    keys[name] = (p, k)
        segment_sets = tuple(p for p in positions if self.index.exprs[p].op is Op.SEGMENT_SET)
        copied = self.index.copied_positions.intersection(positions)
        own = [p for p in positions if p not in copied]
        return Facts(positions[0] if positions else -1, own, copied, keys, segment_sets, state)

    # ---- the union of two live groups -------------------------------------------------------------
    def holds(self, a: int, b: int) -> Callable[[int], bool]:
        """Whether the expr at a position is one of those of groups `a` and `b`."""
        index, owner, both = self.index, self.graph.owner, {a, b}

        def held(p: int) -> bool:
            if p in index.copied_positions:
                return p in self.facts[a].copied or p in self.facts[b].copied
            return owner(index.exprs[p].outputs[0]) in both

        return held

    def outputs_of(self, a: Group, b: Group) -> tuple[str, ...]:
        """What the union of `a` and `b` writes: their outputs that a fusion output or another group needs."""
        index, held = self.index, self.holds(a.id, b.id)
        names = sorted(set(a.outputs) | set(b.outputs), key=index.output_key.__getitem__)
        return tuple(
            n
            for n in names
            if n in index.fusion_outputs or not all(map(held, index.reader_positions.get(n, ())))
        )

    def inputs_of(self, a: Group, b: Group) -> tuple[str, ...]:
        """What the union of `a` and `b` reads from outside it, in the order of its exprs' first reads."""
        owner, both = self.graph.owner, (a.id, b.id)
        keys: dict[str, tuple[int, int]] = {}
        for facts in (self.facts[a.id], self.facts[b.id]):
            for name, key in facts.input_keys.items():
                if owner(name) not in both and (name not in keys or key < keys[name]):
                    keys[name] = key
        return tuple(sorted(keys, key=keys.__getitem__))

    def asks_for_boundary(self, a: Group, b: Group) -> bool:
        """Whether a SEGMENT_SET of either group is read inside their union."""
        segment_sets = self.facts[a.id].segment_sets + self.facts[b.id].segment_sets
        if not segment_sets:
            return False
        index, held = self.index, self.holds(a.id, b.id)
        exprs = [index.exprs[p] for p in sorted(segment_sets)]
        return (
            hint_refusal(exprs, lambda name: any(map(held, index.reader_positions.get(name, ())))) is not None
        )

    def kernel(self, first: Group, second: Group, *, independent: bool) -> Merged | None:
        """One kernel computing both groups, or None if none can. Unless `independent`, `first` is the
        producer; the merged fit is that of their exprs analysed first's, then second's."""
        outputs = self.outputs_of(first, second)
        owner, both = self.graph.owner, (first.id, second.id)
        by_union = _Produced(lambda name: owner(name) in both)
        by_first = _Produced(lambda name: owner(name) == first.id)
        ff, fs = self.facts[first.id], self.facts[second.id]
        state = merged_state(
            self.index,
            ff.state,
            fs.state,
            fs.own,
            second.inputs,
            outputs,
            (by_union, by_first),
            independent=independent,
        )
        if not isinstance(state, KernelState):
            return None
        fit = state.fit
        group = Group(
            next(self.ids),
            fit.kind,
            (),
            self.inputs_of(first, second),
            outputs,
            note=fit.note,
            space=fit.space,
            row_outputs=fit.row_outputs,
        )
        return group, state

    def launch(self, a: Group, b: Group) -> Group:
        """`a` and `b` (independent) in one launch: a HORIZONTAL group with their branches."""
        branches = tuple(
            branch
            for g in (a, b)
            for branch in (g.branches if g.kind is SchedulerKind.HORIZONTAL else (self._with_exprs(g),))
        )
        spaces = "; ".join(f"{b.kind.value} {b.space}" for b in branches)
        note = f"{len(branches)} independent kernels in one launch, the grid split among them: {spaces}"
        inputs, outputs = self.inputs_of(a, b), self.outputs_of(a, b)
        return Group(next(self.ids), SchedulerKind.HORIZONTAL, (), inputs, outputs, branches, note)


class _Produced:
    """The values some groups compute, as a container."""

    def __init__(self, test: Callable[[str], bool]) -> None:
        self.test = test

    def __contains__(self, name: object) -> bool:
        return self.test(name)  # type: ignore[arg-type]
