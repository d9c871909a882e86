"""The step budget and call-depth limit that bound every loop and call of a script being read.

A step is a statement or an expression node evaluated; work the loader does outside its own
evaluation counts in proportion (a builtin walking a list takes a step per element, a call of a
script's function CALL_STEPS, a torch call on the meta device TORCH_CALL_STEPS). So a script that
loops forever, recurses without end or builds huge lists stops with a LimitError at the line being
run, long before it costs a second.
"""

from __future__ import annotations

import ast

from hfuse import settings
from hfuse.errors import LimitError
from hfuse.loader.source import Source

# What work outside the evaluation of single nodes costs, in steps of about the same time.
CALL_STEPS = 10  # a call of a function the script defines: binding its arguments, a new scope
TORCH_CALL_STEPS = 200  # a torch constructor or tensor method, replayed on the meta device


class Budget:
    """Steps taken and calls open while one script is read; `loops` holds the loops being run."""

    __slots__ = ("source", "steps", "max_steps", "depth", "max_depth", "loops")

    def __init__(self, source: Source):
        self.source = source
        self.steps = 0
        self.max_steps = settings.MAX_STEPS.as_int()
        self.depth = 0
        self.max_depth = settings.MAX_CALL_DEPTH.as_int()
        self.loops: list[ast.AST] = []

    def charge(self, node: ast.AST, count: int = 1) -> None:
        self.steps += count
        if self.steps > self.max_steps:
            raise self.exhausted(node)

    def exhausted(self, node: ast.AST) -> LimitError:
        """Placed at the innermost loop being run, else at the node being evaluated."""
        where = self.loops[-1] if self.loops else node
        return self.source.limit_error(
            where,
            f"reading the script takes more than {self.max_steps} steps (statements and expressions "
            "evaluated): a loop that does not end, or far more work than a fusion definition needs; "
            f"set {settings.MAX_STEPS.env} to allow more",
        )

    def enter_call(self, node: ast.AST) -> None:
        """Opens a call; every enter_call is matched by a leave_call, also when the call fails."""
        self.charge(node, CALL_STEPS)
        self.depth += 1
        if self.depth > self.max_depth:
            self.depth -= 1
            raise self.source.limit_error(
                node,
                f"calls nest more than {self.max_depth} deep here (a recursion that does not end?); "
                f"set {settings.MAX_CALL_DEPTH.env} to allow deeper calls",
            )

    def leave_call(self) -> None:
        self.depth -= 1
