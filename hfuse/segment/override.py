"""A merge the user asks for, applied to a finished segmentation: two segments as one kernel, or side by
side in one launch. The segmenter's own verdicts (`can_fuse`, `can_share_launch`) decide whether it is
legal; a merge they refuse raises `MergeError` with their reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from hfuse.errors import MergeError
from hfuse.ir import Fusion
from hfuse.segment.analysis import Refusal
from hfuse.segment.finish import finish
from hfuse.segment.graph import index_of, try_group
from hfuse.segment.legality import can_fuse, can_share_launch
from hfuse.segment.model import Group, SchedulerKind, Segmentation

KERNEL, LAUNCH = "kernel", "launch"  # how two segments are merged: one kernel, or one launch side by side


@dataclass(frozen=True, slots=True)
class Merge:
    """Two segments of a segmentation (by their ids) to merge, as one kernel or as one launch."""

    first: int
    second: int
    how: str = KERNEL

    def __post_init__(self) -> None:
        if self.how not in (KERNEL, LAUNCH):
            raise ValueError(f"unknown way to merge {self.how!r}: {KERNEL!r} or {LAUNCH!r}")

    def __str__(self) -> str:
        what = "one kernel" if self.how == KERNEL else "one launch, side by side"
        return f"segments {self.first} and {self.second} as {what}"


def apply_merge(fusion: Fusion, segmentation: Segmentation, merge: Merge) -> Segmentation:
    """`segmentation` (of `fusion`) with the two segments of `merge` merged, numbered afresh in execution
    order. Raises MergeError when a segment does not exist or the segmenter's verdict refuses the merge."""
    groups = {g.id: g for g in segmentation.groups}
    for gid in (merge.first, merge.second):
        if gid not in groups:
            raise MergeError(
                f"there is no segment {gid}: this segmentation has segments 0 to {len(groups) - 1}"
            )
    if merge.first == merge.second:
        raise MergeError(f"segment {merge.first} cannot be merged with itself: pick two segments")
    a, b = groups[merge.first], groups[merge.second]
    others = [g for g in segmentation.groups if g.id not in (a.id, b.id)]
    merged = _kernel(a, b, fusion, others) if merge.how == KERNEL else _launch(a, b, fusion, others)
    return finish(
        [*others, merged], fusion, segmentation.strategy, segmentation.aliases, segmentation.recomputed
    )


def _kernel(a: Group, b: Group, fusion: Fusion, others: list[Group]) -> Group:
    verdict = can_fuse(a, b, fusion, others)
    if not verdict.ok:
        raise _refused(a, b, "one kernel", verdict.reason)
    index = index_of(fusion)
    built = try_group(-1, [index.position[e] for e in (*a.exprs, *b.exprs)], index)
    if isinstance(built, Refusal):
        raise _refused(a, b, "one kernel", built.reason)
    group, _ = built
    return group


def _launch(a: Group, b: Group, fusion: Fusion, others: list[Group]) -> Group:
    verdict = can_share_launch(a, b, fusion, others)
    if not verdict.ok:
        raise _refused(a, b, "one launch", verdict.reason)
    branches = tuple(
        branch for g in (a, b) for branch in (g.branches if g.kind is SchedulerKind.HORIZONTAL else (g,))
    )
    position = index_of(fusion).position
    exprs = tuple(sorted({e for g in (a, b) for e in g.exprs}, key=position.__getitem__))
    spaces = "; ".join(f"{branch.kind.value} {branch.space}" for branch in branches)
    note = f"{len(branches)} independent kernels in one launch, the grid split among them: {spaces}"
    return Group(
        -1,
        SchedulerKind.HORIZONTAL,
        exprs,
        tuple(dict.fromkeys((*a.inputs, *b.inputs))),
        tuple(dict.fromkeys((*a.outputs, *b.outputs))),
        branches,
        note,
    )


def _refused(a: Group, b: Group, what: str, reason: str) -> MergeError:
    return MergeError(
        f"segments {a.id} and {b.id} cannot be {what}: {reason}. The segmenter keeps them apart; pick "
        "another pair, or the other way to merge"
    )
