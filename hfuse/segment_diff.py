"""What changed between two fusions' cuts into kernels: which segments of the second plan are the same as
in the first, changed or added, and which segments of the first were removed.

Segments are matched through the op alignment of `hfuse.fusion_diff`: a segment of one plan matches the
segment of the other that computes most of its aligned ops, one partner each (so that the second plan's
segments are its same, changed and added ones, and the first plan's its same, changed and removed ones).
A matched segment is the same when both compute the same ops, unchanged, with the same scheduler, reading
and writing the same tensors.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hfuse.fusion_diff import FusionDiff, Status, diff_fusions
from hfuse.ir import Fusion
from hfuse.segment.model import Group, Segmentation

NAMES_SHOWN = 6  # op names a note lists before "and N more"


@dataclass(frozen=True, slots=True)
class SegmentMatch:
    """A segment of the first plan (`before`) and its partner in the second (`after`); one of them is None
    for a removed or an added segment. `note`: what differs, in words; empty for the same segment."""

    before: Group | None
    after: Group | None
    status: Status
    note: str


@dataclass(frozen=True, slots=True)
class SegmentationDiff:
    """The matches in the second plan's order, the first plan's removed segments last; `ops`: the op
    alignment they were made from."""

    matches: tuple[SegmentMatch, ...]
    ops: FusionDiff

    @property
    def counts(self) -> dict[Status, int]:
        found = Counter(match.status for match in self.matches)
        return {status: found[status] for status in ("same", "changed", "added", "removed")}

    @property
    def changed(self) -> bool:
        return any(match.status != "same" for match in self.matches)


def diff_segmentations(
    before: tuple[Fusion, Segmentation], after: tuple[Fusion, Segmentation], titles: tuple[str, str]
) -> SegmentationDiff:
    """Match the segments of two plans, each (the fusion its segments hold the ops of, the segmentation);
    `titles` name the two plans in the notes ("moved to segment 2 in this one")."""
    (old, old_plan), (new, new_plan) = before, after
    ops = diff_fusions(old, new)
    old_owner, new_owner = _owners(old, old_plan), _owners(new, new_plan)
    overlap: Counter[tuple[int, int]] = Counter()  # (group of `before`, group of `after`) -> ops in common
    for new_op, old_op in ops.pairs.items():
        if old_op in old_owner and new_op in new_owner:
            overlap[old_owner[old_op], new_owner[new_op]] += 1
    partner_of: dict[int, int] = {}  # group of `after` -> its partner of `before`
    taken: set[int] = set()
    for (old_group, new_group), _ in sorted(overlap.items(), key=lambda item: (-item[1], item[0][1])):
        if new_group not in partner_of and old_group not in taken:
            partner_of[new_group] = old_group
            taken.add(old_group)
    notes = _Notes(old, new, ops, old_owner, new_owner, titles)
    old_groups = {group.id: group for group in old_plan.groups}
    matches = []
    for group in new_plan.groups:
        if group.id not in partner_of:
            matches.append(SegmentMatch(None, group, "added", notes.of_added(group)))
            continue
        was = old_groups[partner_of[group.id]]
        note = notes.of_matched(was, group)
        matches.append(SegmentMatch(was, group, "changed" if note else "same", note))
    for group in old_plan.groups:
        if group.id not in taken:
            matches.append(SegmentMatch(group, None, "removed", notes.of_removed(group)))
    return SegmentationDiff(tuple(matches), ops)


def _owners(fusion: Fusion, plan: Segmentation) -> dict[int, int]:
    """An op of the fusion, by position -> the id of the segment that computes it (an op that no segment
    computes has none)."""
    position = {expr.outputs: index for index, expr in enumerate(fusion.exprs)}
    return {position[expr.outputs]: group.id for group in plan.groups for expr in group.exprs}


@dataclass(frozen=True, slots=True)
class _Notes:
    """What differs between matched segments, in words."""

    old: Fusion
    new: Fusion
    ops: FusionDiff
    old_owner: dict[int, int]
    new_owner: dict[int, int]
    titles: tuple[str, str]

    def of_matched(self, was: Group, group: Group) -> str:
        parts = []
        if was.kind is not group.kind:
            parts.append(f"scheduler was {was.kind.value}")
        parts.extend(self._taken(group, was.id))
        parts.extend(self._added(group))
        changed = [
            index
            for index in self._positions(self.new, group)
            if self.ops.exprs[index] == "changed" and self.old_owner.get(self.ops.pairs[index]) == was.id
        ]
        if changed:
            parts.append(f"changed {self._names(self.new, changed)}")
        parts.extend(self._given(was, group.id))
        partner = self.ops.partner
        if not parts and {partner.get(name) for name in group.outputs} != set(was.outputs):
            parts.append("writes other tensors to memory")
        if not parts and {partner.get(name) for name in group.inputs} != set(was.inputs):
            parts.append("reads other tensors from memory")
        return "; ".join(parts)

    def of_added(self, group: Group) -> str:
        return "; ".join([*self._taken(group, None), *self._added(group)])

    def of_removed(self, was: Group) -> str:
        return "; ".join(self._given(was, None))

    def _added(self, group: Group) -> list[str]:
        """The ops of `group` that have no partner in `before`."""
        added = [index for index in self._positions(self.new, group) if index not in self.ops.pairs]
        return [f"added {self._names(self.new, added)}"] if added else []

    def _taken(self, group: Group, partner: int | None) -> list[str]:
        """The ops of `group` (of `after`) whose partners a segment of `before` other than `partner`
        computed, by that segment."""
        moved: dict[int, list[int]] = {}
        for index in self._positions(self.new, group):
            source = self.old_owner.get(self.ops.pairs[index]) if index in self.ops.pairs else None
            if source is not None and source != partner:
                moved.setdefault(source, []).append(index)
        return [
            f"took {self._names(self.new, ops)} from segment {source} {self.titles[0]}"
            for source, ops in sorted(moved.items())
        ]

    def _given(self, was: Group, partner: int | None) -> list[str]:
        """The ops of `was` (of `before`) that a segment of `after` other than `partner` computes now, or no
        segment does, by that segment."""
        taken_by = {old_op: self.new_owner.get(new_op) for new_op, old_op in self.ops.pairs.items()}
        moved: dict[int | None, list[int]] = {}
        for index in self._positions(self.old, was):
            target = taken_by.get(index)
            if partner is None or target != partner:
                moved.setdefault(target, []).append(index)
        return [
            f"{self._names(self.old, ops)} "
            + ("removed" if target is None else f"moved to segment {target} {self.titles[1]}")
            for target, ops in sorted(moved.items(), key=lambda item: (item[0] is None, item[0] or 0))
        ]

    @staticmethod
    def _positions(fusion: Fusion, group: Group) -> list[int]:
        position = {expr.outputs: index for index, expr in enumerate(fusion.exprs)}
        return sorted(position[expr.outputs] for expr in group.exprs)

    @staticmethod
    def _names(fusion: Fusion, positions: list[int]) -> str:
        return _listed([fusion.exprs[i].op.frontend_name for i in positions])


def op_names(group: Group) -> str:
    """The segment's ops in order, for a table."""
    return _listed([expr.op.frontend_name for expr in group.exprs])


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")
