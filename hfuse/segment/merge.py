"""The merge steps around the legality predicates.

- vertical: a producer group joins a consumer group along an edge (the data never leaves the chip);
- same space: independent groups with one iteration space become one kernel computing all their outputs;
- horizontal: independent groups with different spaces share one launch (a HORIZONTAL group whose
  branches split the grid).
Each step repeats until nothing more merges; the group graph stays a DAG throughout.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from hfuse.ir import Fusion
from hfuse.ops import op_def
from hfuse.segment.graph import KERNEL_KINDS, GroupGraph, index_of, make_group
from hfuse.segment.legality import fuse_verdict, share_verdict
from hfuse.segment.model import Group, SchedulerKind

PairFilter = Callable[[Group, Group, GroupGraph], bool]


class Merger:
    """The current groups of one fusion; new groups get fresh ids."""

    def __init__(self, groups: list[Group], fusion: Fusion) -> None:
        self.fusion = fusion
        self.groups = groups
        self.ids = itertools.count(max((g.id for g in groups), default=-1) + 1)

    def graph(self) -> GroupGraph:
        return GroupGraph(self.groups, self.fusion)

    def replace(self, a: Group, b: Group, merged: Group) -> None:
        self.groups = [g for g in self.groups if g.id not in (a.id, b.id)] + [merged]
        position = index_of(self.fusion).position
        self.groups.sort(key=lambda g: min((position[e] for e in g.exprs), default=-1))

    def fuse(self, a: Group, b: Group) -> Group:
        return make_group(next(self.ids), [*a.exprs, *b.exprs], self.fusion)

    def vertical(self, allowed: PairFilter | None = None) -> bool:
        """Merges producers into consumers until no edge can merge; whether anything merged."""
        merged_any = False
        while True:
            graph = self.graph()
            pair = next(
                (
                    (p, graph.groups[c])
                    for p in self.groups
                    for c in sorted(graph.successors[p.id])
                    if (allowed is None or allowed(p, graph.groups[c], graph))
                    and fuse_verdict(p, graph.groups[c], self.fusion, graph).ok
                ),
                None,
            )
            if pair is None:
                return merged_any
            self.replace(*pair, self.fuse(*pair))
            merged_any = True

    def same_space(self) -> bool:
        """Merges independent kernel groups that one kernel can compute together."""
        merged_any = False
        while True:
            graph = self.graph()
            pair = next(
                (
                    (a, b)
                    for a, b in itertools.combinations(self.groups, 2)
                    if a.kind in KERNEL_KINDS
                    and b.kind in KERNEL_KINDS
                    and not graph.reaches(a.id, b.id)
                    and not graph.reaches(b.id, a.id)
                    and fuse_verdict(a, b, self.fusion, graph).ok
                ),
                None,
            )
            if pair is None:
                return merged_any
            self.replace(*pair, self.fuse(*pair))
            merged_any = True

    def horizontal(self) -> None:
        """Puts independent kernel groups of different spaces into one launch."""
        while True:
            graph = self.graph()
            pair = next(
                ((a, b) for a, b in itertools.combinations(self.groups, 2) if share_verdict(a, b, graph).ok),
                None,
            )
            if pair is None:
                return
            a, b = pair
            branches = tuple(
                branch
                for g in (a, b)
                for branch in (g.branches if g.kind is SchedulerKind.HORIZONTAL else (g,))
            )
            exprs = [e for branch in branches for e in branch.exprs]
            launch = make_group(next(self.ids), exprs, self.fusion, branches=branches)
            self.replace(a, b, launch)


def is_chain_link(producer: Group, consumer: Group, graph: GroupGraph) -> bool:
    """The naive strategy's rule: merge only along a chain (one reader, one writer) of non-reductions."""
    single_reader = graph.successors[producer.id] == {consumer.id}
    single_writer = sum(consumer.id in targets for targets in graph.successors.values()) == 1
    no_reduction = not any(op_def(e.op).reduces for g in (producer, consumer) for e in g.exprs)
    return single_reader and single_writer and no_reduction
