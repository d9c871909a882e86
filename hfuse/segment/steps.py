"""The merge steps: which pairs of groups each tries, in what order, and what a legal pair merges into.

- `Vertical`: a producer group joins a group it feeds;
- `SameSpace`: independent kernel groups whose spaces could fit become one kernel;
- `Horizontal`: independent groups that launch kernels share one launch.

Each step hands out its pairs in the order of `merge` (the first group's rank, then the second's;
vertical pairs by the producer's rank, then the consumer's id) from a worklist that a merge updates
with the pairs it changed.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable

from hfuse.ops import op_def
from hfuse.segment.graph import KERNEL_KINDS, GroupGraph
from hfuse.segment.merge import Merged, Merger
from hfuse.segment.model import Group, SchedulerKind

PairFilter = Callable[[Group, Group, GroupGraph], bool]
Pair = tuple[int, int]
_KERNEL_KINDS = tuple(KERNEL_KINDS)  # a tuple: membership by identity, without hashing enum members
_LAUNCHING = (*_KERNEL_KINDS, SchedulerKind.HORIZONTAL)


class Step:
    """One kind of merge: the pairs it tries, in order, and the merged group of a legal pair."""

    def start(self, merger: Merger) -> None:
        """Lists the pairs of the live groups to try."""
        raise NotImplementedError

    def merged(self, merger: Merger, a: int, b: int, new: int) -> None:
        """Groups `a` and `b` became `new`: drops their pairs, lists those `new` brings."""
        raise NotImplementedError

    def next_pair(self, merger: Merger) -> Pair | None:
        """The first pair of live groups not tried yet (in the order of the module docstring), or None."""
        raise NotImplementedError

    def try_merge(self, merger: Merger, a: Group, b: Group) -> Merged | None:
        raise NotImplementedError


class Vertical(Step):
    """A producer joins a group it feeds. `allowed` narrows the edges (the naive strategy's chain rule,
    which depends on the neighbours: their pairs are tried again when a merge changes them)."""

    def __init__(self, allowed: PairFilter | None = None) -> None:
        self.allowed = allowed
        self.queue: list[tuple[tuple[int, int], int, int]] = []  # (producer's rank, consumer, producer)

    def _push(self, merger: Merger, pairs: Iterable[Pair]) -> None:
        for producer, consumer in pairs:
            heapq.heappush(self.queue, (merger.rank(producer), consumer, producer))

    def start(self, merger: Merger) -> None:
        self._push(merger, [(p, c) for p, consumers in merger.graph.successors.items() for c in consumers])

    def merged(self, merger: Merger, a: int, b: int, new: int) -> None:
        graph = merger.graph
        pairs = [(p, new) for p in graph.predecessors[new]] + [(new, c) for c in graph.successors[new]]
        if self.allowed is not None:
            pairs += [(p, c) for p in graph.predecessors[new] for c in graph.successors[p]]
            pairs += [(p, c) for c in graph.successors[new] for p in graph.predecessors[c]]
        self._push(merger, pairs)

    def next_pair(self, merger: Merger) -> Pair | None:
        live = merger.graph.groups
        while self.queue:
            _, consumer, producer = heapq.heappop(self.queue)
            if producer in live and consumer in live:
                return producer, consumer
        return None

    def try_merge(self, merger: Merger, producer: Group, consumer: Group) -> Merged | None:
        graph = merger.graph
        if self.allowed is not None and not self.allowed(producer, consumer, graph):
            return None
        # `legality.fuse_verdict`'s refusals, as yes or no: kinds, a boundary hint, a cycle (the consumer
        # cannot reach the producer: the graph has no cycle)
        if producer.kind not in _KERNEL_KINDS or consumer.kind not in _KERNEL_KINDS:
            return None
        if merger.asks_for_boundary(producer, consumer) or graph.has_detour(producer.id, consumer.id):
            return None
        return merger.kernel(producer, consumer, independent=False)


Keys = tuple[list[tuple], list[tuple]]  # the keys a group is filed under, those of the groups it pairs with
EVERY = ("every",)  # a partner key: the groups filed under any key


class PairsInOrder:
    """The pairs of live groups whose keys match, handed out in order: by the first group's rank, then
    the second's. Groups are filed by key in rank order; each group has a cursor, the next group after
    it in rank that it pairs with, and a heap holds the cursors. A group that arrives after a lower-ranked
    group's cursor went past its rank gets that pair on its own."""

    def __init__(self, keys: Callable[[Merger, int], Keys | None]) -> None:
        self.keys = keys  # None for a group that pairs with none
        self.files: dict[tuple, list[tuple[int, int]]] = {}  # key -> the ranks filed under it, in order
        self.filed: dict[int, tuple[tuple[int, int], Keys]] = {}  # group -> its rank and keys
        self.cursor: dict[int, tuple[int, int] | None] = {}  # group -> the rank its cursor points at
        self.heap: list[tuple[tuple[int, int], tuple[int, int], bool]] = []  # (rank, rank, from a cursor)

    def start(self, merger: Merger, gids: Iterable[int]) -> None:
        for gid in [gid for gid in gids if self._file(merger, gid)]:
            self._advance(gid, self.filed[gid][0])

    def add(self, merger: Merger, gid: int) -> None:
        if not self._file(merger, gid):
            return
        rank = self.filed[gid][0]
        earlier = {r for ranks in self._partner_files(gid) for r in ranks[: bisect.bisect_left(ranks, rank)]}
        for other in sorted(earlier):
            cursor = self.cursor[other[1]]
            if cursor is None or cursor > rank:  # its cursor will not come to this group
                heapq.heappush(self.heap, (other, rank, False))
        self._advance(gid, rank)

    def remove(self, gid: int) -> None:
        if gid not in self.filed:
            return
        rank, (filed, _) = self.filed.pop(gid)
        del self.cursor[gid]
        for key in filed:
            ranks = self.files[key]
            del ranks[bisect.bisect_left(ranks, rank)]

    def pop(self) -> Pair | None:
        while self.heap:
            first, second, from_cursor = heapq.heappop(self.heap)
            a, b = first[1], second[1]
            if from_cursor and a in self.filed:
                self._advance(a, second)
            if a in self.filed and b in self.filed:
                return a, b
        return None

    def _file(self, merger: Merger, gid: int) -> bool:
        keys = self.keys(merger, gid)
        if keys is None:
            return False
        rank = merger.rank(gid)
        self.filed[gid] = (rank, keys)
        for key in keys[0]:
            bisect.insort(self.files.setdefault(key, []), rank)
        return True

    def _partner_files(self, gid: int) -> list[list[tuple[int, int]]]:
        partners = self.filed[gid][1][1]
        if EVERY in partners:
            return list(self.files.values())
        return [self.files[key] for key in partners if key in self.files]

    def _advance(self, gid: int, after: tuple[int, int]) -> None:
        """Points the group's cursor at the first group after `after` in rank that it pairs with."""
        found = None
        for ranks in self._partner_files(gid):
            i = bisect.bisect_right(ranks, after)
            if i < len(ranks) and (found is None or ranks[i] < found):
                found = ranks[i]
        self.cursor[gid] = found
        if found is not None:
            heapq.heappush(self.heap, (self.filed[gid][0], found, True))


class PairStep(Step):
    """A step that tries pairs of independent groups (`PairsInOrder`), filed under `keys`."""

    def __init__(self) -> None:
        self.pairs = PairsInOrder(self.keys)

    def keys(self, merger: Merger, gid: int) -> Keys | None:
        raise NotImplementedError

    def start(self, merger: Merger) -> None:
        self.pairs.start(merger, sorted(merger.graph.groups, key=merger.rank))

    def merged(self, merger: Merger, a: int, b: int, new: int) -> None:
        self.pairs.remove(a)
        self.pairs.remove(b)
        self.pairs.add(merger, new)

    def next_pair(self, merger: Merger) -> Pair | None:
        return self.pairs.pop()


class SameSpace(PairStep):
    """Independent kernel groups that one kernel computes together. Only groups whose spaces could fit
    are paired: pointwise groups writing one shape, reduction groups of one space, and each with the
    other where the shape is the reduced shape or its rows (groups writing no tensor go with any)."""

    def keys(self, merger: Merger, gid: int) -> Keys | None:
        group = merger.graph.groups[gid]
        if group.kind not in _KERNEL_KINDS:
            return None
        state = merger.facts[gid].state
        space = state.fit.space
        if state.reduction is not None:
            rows = [space.outer_shape, space.keepdim_shape] if space.reduced_dims else []
            shapes = list(dict.fromkeys([space.shape, *rows]))
            filed = [("reduction", space)] + [("rows", s) for s in shapes]
            return filed, [("reduction", space), ("any",)] + [("pointwise", s) for s in shapes]
        if not any(merger.index.values[n].is_tensor for n in group.outputs):
            return [("any",)], [EVERY]
        return [("pointwise", space.shape)], [("pointwise", space.shape), ("rows", space.shape), ("any",)]

    def try_merge(self, merger: Merger, a: Group, b: Group) -> Merged | None:
        graph = merger.graph
        if graph.reaches(a.id, b.id) or graph.reaches(b.id, a.id) or merger.asks_for_boundary(a, b):
            return None
        return merger.kernel(a, b, independent=True)


class Horizontal(PairStep):
    """Independent groups that launch kernels share one launch."""

    def keys(self, merger: Merger, gid: int) -> Keys | None:
        if merger.graph.groups[gid].kind not in _LAUNCHING:
            return None
        return [("launch",)], [("launch",)]

    def try_merge(self, merger: Merger, a: Group, b: Group) -> Merged | None:
        graph = merger.graph
        if graph.reaches(a.id, b.id) or graph.reaches(b.id, a.id):
            return None
        return merger.launch(a, b), None


def is_chain_link(producer: Group, consumer: Group, graph: GroupGraph) -> bool:
    """The naive strategy's rule: merge only along a chain (one reader, one writer) of non-reductions."""
    single_reader = graph.successors[producer.id] == {consumer.id}
    single_writer = graph.predecessors[consumer.id] == {producer.id}
    return single_reader and single_writer and not (_reduces(producer) or _reduces(consumer))


def _reduces(group: Group) -> bool:
    if group.kind in (SchedulerKind.REDUCTION, SchedulerKind.NORMALIZATION):
        return True
    return group.kind is SchedulerKind.TORCH and op_def(group.exprs[0].op).reduces
