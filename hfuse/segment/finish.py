"""The last step of segmenting: groups in execution order, numbered, with the reason for every boundary."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hfuse.backends import NAIVE
from hfuse.ir import Fusion
from hfuse.segment.graph import GroupGraph
from hfuse.segment.legality import Verdict, fuse_verdict
from hfuse.segment.model import AliasInfo, Boundary, Group, Recomputed, RefusedMerge, Segmentation


def finish(
    groups: Sequence[Group],
    fusion: Fusion,
    strategy: str,
    aliases: tuple[AliasInfo, ...],
    recomputed: Sequence[Recomputed] = (),
) -> Segmentation:
    """The segmentation of `groups`: numbered in execution order, with every boundary and its reason.
    `recomputed` lists the copies kernels recompute; each names the group that reads it afterwards."""
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
    reader = {name: g.id for g in final for e in g.exprs for name in e.outputs}
    return Segmentation(
        strategy,
        tuple(final),
        tuple(boundaries),
        tuple(RefusedMerge(a, b, reason) for (a, b), reason in refused.items()),
        aliases,
        tuple(dataclasses.replace(r, consumer=reader[r.copy]) for r in recomputed),
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
