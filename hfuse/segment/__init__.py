"""Segmentation: which exprs each kernel computes, and why the kernels are cut where they are.

`segment` starts from one group per expr (aliased outputs in one ALIAS group), then merges:
vertically along edges, same-space groups into one kernel, the rest into shared launches (one loop
drives the three steps, see `merge`). The `naive` strategy only merges along single-reader chains
without reductions and never horizontally: one kernel per op chain, as fusion compilers once did
for the QKV split. `recompute_crossings` then lets a kernel recompute a cheap tensor that another one
would write for it to read back (see `recompute`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hfuse.backends import HFUSE, NAIVE, STRATEGIES
from hfuse.errors import UnsupportedError
from hfuse.ir import Expr, Fusion
from hfuse.segment.analysis import KernelState
from hfuse.segment.graph import GroupGraph, build_group, index_of
from hfuse.segment.legality import Verdict, can_fuse, can_share_launch, fuse_verdict
from hfuse.segment.merge import Merger
from hfuse.segment.model import (
    AliasInfo,
    Boundary,
    Group,
    IterSpace,
    Recomputed,
    RefusedMerge,
    SchedulerKind,
    Segmentation,
)
from hfuse.segment.recompute import recompute
from hfuse.segment.steps import Horizontal, SameSpace, Vertical, is_chain_link


def segment(fusion: Fusion, *, strategy: str = HFUSE, alias: Sequence[AliasInfo] = ()) -> Segmentation:
    """Cuts `fusion` into groups. `alias` lists the outputs served as views of inputs (from the alias
    pass); the naive strategy ignores it and computes every output with a kernel."""
    if strategy not in STRATEGIES:
        raise UnsupportedError(
            f"segmentation strategy {strategy!r} is unknown; use one of {', '.join(STRATEGIES)}"
        )
    aliases = tuple(alias) if strategy == HFUSE else ()
    alias_exprs = _alias_exprs(fusion, aliases)
    groups: list[tuple[Group, KernelState | None]] = []
    if aliases:
        inputs = tuple(dict.fromkeys(a.input for a in aliases))
        outputs = tuple(a.output for a in aliases)
        note = "outputs are strided views of inputs: no data moves"
        groups.append((Group(0, SchedulerKind.ALIAS, tuple(alias_exprs), inputs, outputs, note=note), None))
    index = index_of(fusion)
    taken = {index.position[e] for e in alias_exprs} | index.copied_positions
    rest = [p for p in range(len(fusion.exprs)) if p not in taken]
    groups += [build_group(len(groups) + i, [p], index) for i, p in enumerate(rest)]
    merger = Merger(groups, fusion)
    if strategy == NAIVE:
        merger.run([Vertical(allowed=is_chain_link)])
    else:
        merger.run([Vertical(), SameSpace(), Horizontal()])
    return _finish(merger.groups, fusion, strategy, aliases)


def recompute_crossings(fusion: Fusion, segmentation: Segmentation) -> tuple[Fusion, Segmentation]:
    """The fusion with the copies of the tensors that kernels recompute rather than read back, and its
    segmentation (see `recompute`); both unchanged when none is worth it or the strategy is not hfuse."""
    if segmentation.strategy != HFUSE:
        return fusion, segmentation
    new, groups, recomputed = recompute(fusion, segmentation.groups)
    if not recomputed:
        return fusion, segmentation
    finished = _finish(groups, new, segmentation.strategy, segmentation.aliases)
    reader = {name: g.id for g in finished.groups for e in g.exprs for name in e.outputs}
    recomputed = [dataclasses.replace(r, consumer=reader[r.copy]) for r in recomputed]
    return new, dataclasses.replace(finished, recomputed=tuple(recomputed))


def _alias_exprs(fusion: Fusion, aliases: Sequence[AliasInfo]) -> list[Expr]:
    """The view exprs that compute the aliased outputs (the alias pass made them private to those)."""
    producers = {name: e for e in fusion.exprs for name in e.outputs}
    chain: set[Expr] = set()
    stack = [a.output for a in aliases]
    while stack:
        expr = producers.get(stack.pop())
        if expr is not None and expr not in chain:
            chain.add(expr)
            stack.extend(expr.inputs)
    return [e for e in fusion.exprs if e in chain]


def _finish(
    groups: list[Group], fusion: Fusion, strategy: str, aliases: tuple[AliasInfo, ...]
) -> Segmentation:
    order = GroupGraph(groups, fusion).execution_order()
    new_id = {g.id: i for i, g in enumerate(order)}
    next_branch_id = len(order)
    final = []
    for g in order:
        branches = []
        for branch in g.branches:
            branches.append(dataclasses.replace(branch, id=next_branch_id))
            next_branch_id += 1
        final.append(dataclasses.replace(g, id=new_id[g.id], branches=tuple(branches)))
    graph = GroupGraph(final, fusion)
    boundaries, refused = [], {}
    verdicts: dict[tuple[int, int], Verdict] = {}
    for consumer in final:
        for tensor in consumer.inputs:
            producer_id = graph.owner(tensor)
            if producer_id is None:
                continue
            producer = graph.groups[producer_id]
            writer = next((b for b in producer.branches if tensor in b.outputs), producer)
            reader = next((b for b in consumer.branches if tensor in b.inputs), consumer)
            if (writer.id, reader.id) not in verdicts:
                verdicts[writer.id, reader.id] = _verdict(writer, reader, producer, consumer, graph, fusion)
            reason = _boundary_reason(producer, consumer, tensor, verdicts[writer.id, reader.id], strategy)
            boundaries.append(Boundary(producer.id, consumer.id, tensor, reason))
            refused.setdefault((producer.id, consumer.id), reason)
    return Segmentation(
        strategy,
        tuple(final),
        tuple(boundaries),
        tuple(RefusedMerge(a, b, reason) for (a, b), reason in refused.items()),
        aliases,
    )


def _verdict(
    writer: Group, reader: Group, producer: Group, consumer: Group, graph: GroupGraph, fusion: Fusion
) -> Verdict:
    """Whether `writer` (a branch of `producer`, or itself) and `reader` (likewise of `consumer`) could
    be one kernel, among the other groups."""
    if writer is not producer or reader is not consumer:
        others = [g for g in graph.groups.values() if g.id not in (producer.id, consumer.id)]
        graph = GroupGraph([writer, reader, *others], fusion)
    return fuse_verdict(writer, reader, fusion, graph)


def _boundary_reason(producer: Group, consumer: Group, tensor: str, verdict: Verdict, strategy: str) -> str:
    if not verdict.ok:
        return verdict.reason
    if strategy == NAIVE:
        return (
            "the naive strategy gives every op chain its own kernel; hfuse would merge these "
            f"({verdict.reason})"
        )
    return (
        f"{tensor} goes through global memory: the merge order kept groups {producer.id} and "
        f"{consumer.id} apart"
    )


__all__ = [
    "AliasInfo",
    "Boundary",
    "Group",
    "IterSpace",
    "Recomputed",
    "RefusedMerge",
    "SchedulerKind",
    "Segmentation",
    "Verdict",
    "can_fuse",
    "can_share_launch",
    "recompute_crossings",
    "segment",
]
