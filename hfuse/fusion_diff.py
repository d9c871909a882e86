"""What changed between two fusions, op by op: which ops of the second are the same as in the first, changed
(the same op in the same place with other attributes or other operands) or added, and which ops of the first
were removed.

Names are no guide (inserting one op numbers every later value afresh), so ops are aligned as sequences
(`difflib.SequenceMatcher`) by what they are: op, attributes and the shapes and dtypes they make. An aligned
op is the same when it also reads the values its partner reads (inputs pair by position).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from hfuse.ir import Expr, Fusion

Status = Literal["same", "changed", "added", "removed"]


@dataclass(frozen=True, slots=True)
class FusionDiff:
    """`exprs`: the status of each op of the second fusion, by position; `removed`: the positions of the
    first fusion's ops with no partner; `inputs`: the status of each input of the second fusion;
    `partner`: a value of the second fusion -> the value of the first it stands for; `pairs`: an op of the
    second fusion, by position -> the position of its partner op in the first (added ops have none)."""

    exprs: tuple[Status, ...]
    removed: tuple[int, ...]
    inputs: tuple[Status, ...]
    partner: dict[str, str]
    pairs: dict[int, int]

    @property
    def changed(self) -> bool:
        return bool(self.removed) or any(status != "same" for status in (*self.exprs, *self.inputs))


def diff_fusions(before: Fusion, after: Fusion) -> FusionDiff:
    old, new = before.value_map, after.value_map
    partner: dict[str, str] = {}
    inputs: list[Status] = []
    for position, name in enumerate(after.inputs):
        if position >= len(before.inputs):
            inputs.append("added")
            continue
        other = before.inputs[position]
        partner[name] = other
        same = (old[other].shape, old[other].dtype) == (new[name].shape, new[name].dtype)
        inputs.append("same" if same else "changed")
    old_ops = [_signature(e, before) for e in before.exprs]
    matcher = difflib.SequenceMatcher(None, old_ops, [_signature(e, after) for e in after.exprs], False)
    pairs: dict[int, int] = {}  # op of `after` -> its partner in `before`
    removed: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        paired = min(i2 - i1, j2 - j1) if tag in ("equal", "replace") else 0
        pairs.update(zip(range(j1, j1 + paired), range(i1, i1 + paired), strict=True))
        removed.extend(range(i1 + paired, i2))
    statuses: list[Status] = []
    for position, expr in enumerate(after.exprs):
        if position not in pairs:
            statuses.append("added")
            continue
        was = before.exprs[pairs[position]]
        partner.update(zip(expr.outputs, was.outputs, strict=False))
        rewired = [partner.get(name, _constant(name, after)) for name in expr.inputs] != [
            name if old[name].const is None else _constant(name, before) for name in was.inputs
        ]
        same = _signature(expr, after) == _signature(was, before) and not rewired
        statuses.append("same" if same else "changed")
    return FusionDiff(tuple(statuses), tuple(removed), tuple(inputs), partner, pairs)


def _signature(expr: Expr, fusion: Fusion) -> tuple:
    values = fusion.value_map
    made = tuple((values[name].shape, values[name].dtype) for name in expr.outputs)
    return expr.op, expr.attrs, made


def _constant(name: str, fusion: Fusion) -> object:
    """A constant scalar operand stands for its value; any other value for its name."""
    value = fusion.value_map[name]
    return ("constant", value.const) if value.const is not None else name
