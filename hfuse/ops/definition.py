"""What hfuse knows about one op, in one place: the entry type of the op table."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hfuse.infer.common import Inferred
from hfuse.ir import Family, Op, Value
from hfuse.ops.emitters import Emitter, Policy
from hfuse.ops.meaning import Meaning

Rule = Callable[[Op, list[Value], dict[str, Any]], Inferred]

_ELEMENTWISE = frozenset({Family.UNARY, Family.BINARY, Family.TERNARY, Family.CAST})
_REDUCING = frozenset({Family.REDUCTION, Family.VAR})


class Computed(enum.Enum):
    """Where and how a generated program computes the op."""

    BY_EMITTER = "in a kernel, by the op's emitter"
    BY_LOWERING = "in a kernel, by codegen's lowering of the op at an index"
    IN_TORCH = "by torch, in a segment of its own"


class Cost(enum.Enum):
    """What computing one element costs a kernel."""

    CHEAP = "a few instructions"
    LONG_MATH = "a special-function unit call and a dozen instructions"


@dataclass(frozen=True, slots=True)
class OpDef:
    """One op: its shape and dtype `rule`, its `meaning` in torch (the reference), how a program
    computes it (with the `emitter` and its operand `policy` when a kernel emits it) and its cost.
    Its family is the Op's own (`ir.Op`)."""

    op: Op
    rule: Rule
    meaning: Meaning
    computed: Computed
    emitter: Emitter | None = None
    policy: Policy | None = None
    cost: Cost = Cost.CHEAP

    def __post_init__(self) -> None:
        emits = self.computed is Computed.BY_EMITTER
        assert emits == (self.emitter is not None) == (self.policy is not None), (
            f"{self.op}: an emitter and its policy come with Computed.BY_EMITTER, and only with it"
        )

    @property
    def family(self) -> Family:
        return self.op.family

    @property
    def is_elementwise(self) -> bool:
        """Each result element comes from the operand elements at the same (broadcast) position."""
        return self.op.family in _ELEMENTWISE

    @property
    def reduces(self) -> bool:
        return self.op.family in _REDUCING

    @property
    def runs_in_torch(self) -> bool:
        return self.computed is Computed.IN_TORCH
