"""Limits on the structure of a fusion that make compiling it grow: ops, inputs of one op, and depth (the
longest chain of ops from an input to an output).

Each check is linear in the fusion and runs before any step whose work grows faster: `FusionBuilder`
checks every op as it is added (so a script's error points at its line), `compile` checks the whole
fusion (whichever way it was made).
"""

from __future__ import annotations

from collections.abc import Sequence

from hfuse import settings
from hfuse.errors import LimitError, loc_of
from hfuse.ir import Expr, Fusion, Op


class Depths:
    """The depth of every value of a fusion whose exprs are added in order: an input is at depth 0, an op's
    outputs one deeper than its deepest input."""

    def __init__(self) -> None:
        self._depth: dict[str, int] = {}

    def add(self, op: Op, inputs: Sequence[str], outputs: Sequence[str], loc: tuple[int, int] | None) -> None:
        """Records the depth of an op's outputs; a LimitError when it ends a chain longer than
        HFUSE_MAX_DEPTH ops."""
        depth = 1 + max((self._depth.get(name, 0) for name in inputs), default=0)
        limit = settings.MAX_DEPTH.as_int()
        if depth > limit:
            raise LimitError(
                f"{op.frontend_name} producing {', '.join(outputs)} ends a chain of {depth} ops; the limit "
                f"is {limit} (set {settings.MAX_DEPTH.env} to compile longer chains)",
                loc=loc_of(loc),
            )
        for name in outputs:
            self._depth[name] = depth


def check_op_inputs(op: Op, count: int, loc: tuple[int, int] | None) -> None:
    """A LimitError when an op takes more than HFUSE_MAX_OP_INPUTS inputs."""
    limit = settings.MAX_OP_INPUTS.as_int()
    if count > limit:
        raise LimitError(
            f"{op.frontend_name} takes {count} inputs; the limit is {limit} "
            f"(set {settings.MAX_OP_INPUTS.env} to allow more: compile time grows with its square)",
            loc=loc_of(loc),
        )


def check_structure(fusion: Fusion) -> None:
    """A LimitError when `fusion` has more ops than HFUSE_MAX_OPS, an op with more inputs than
    HFUSE_MAX_OP_INPUTS, or a chain of ops longer than HFUSE_MAX_DEPTH."""
    limit = settings.MAX_OPS.as_int()
    if len(fusion.exprs) > limit:
        raise LimitError(
            f"the fusion has {len(fusion.exprs)} ops; the limit is {limit} (set {settings.MAX_OPS.env})",
            loc=loc_of(_first_loc(fusion.exprs[limit:])),
        )
    depths = Depths()
    for expr in fusion.exprs:
        check_op_inputs(expr.op, len(expr.inputs), expr.loc)
        depths.add(expr.op, expr.inputs, expr.outputs, expr.loc)


def _first_loc(exprs: Sequence[Expr]) -> tuple[int, int] | None:
    return next((expr.loc for expr in exprs if expr.loc is not None), None)
