"""Canonicalization: exprs that do not change their operand are folded into it.

A SET, a reshape to the same shape, an identity permute, a full slice, a zero pad, a cast to the
same dtype (any movement that reads every element where it writes it, see `layout.is_identity`),
and a stride_order a contiguous operand already has, are removed and their result is renamed
to their operand everywhere it is used. SEGMENT_SET is kept: it is the user's request for a kernel
boundary, not a computation.
"""

from __future__ import annotations

import dataclasses

from hfuse.ir import Expr, Fusion, Op, Output, Value
from hfuse.layout import MOVEMENT_OPS, is_identity, movement_of, row_major


def is_noop(expr: Expr, values: dict[str, Value]) -> bool:
    """Whether `expr` returns its (only tensor) operand unchanged: same shape, dtype and elements."""
    if len(expr.outputs) != 1 or not expr.inputs:
        return False
    source, result = values[expr.inputs[0]], values[expr.outputs[0]]
    if not source.is_tensor or source.shape != result.shape or source.dtype != result.dtype:
        return False
    if expr.op is Op.CAST:
        return True
    if expr.op is Op.STRIDE_ORDER:  # a request for a layout: a no-op where the operand already has it
        return tuple(expr.attr("stride_order")) == row_major(source.rank) and source.is_contiguous
    if expr.op in MOVEMENT_OPS:
        moves = movement_of(expr, values)
        return len(moves) == 1 and is_identity(moves[0])
    return False


def canonicalize(fusion: Fusion) -> Fusion:
    values = fusion.value_map
    outputs_by_name = {out.name: out for out in fusion.outputs}
    renamed: dict[str, str] = {}
    kept: list[Expr] = []
    for expr in fusion.exprs:
        inputs = tuple(renamed.get(name, name) for name in expr.inputs)
        expr = dataclasses.replace(expr, inputs=inputs)
        if is_noop(expr, values) and _can_rename(expr, outputs_by_name, fusion, renamed):
            renamed[expr.outputs[0]] = inputs[0]
        else:
            kept.append(expr)
    outputs = tuple(dataclasses.replace(out, name=renamed.get(out.name, out.name)) for out in fusion.outputs)
    kept_values = tuple(v for v in fusion.values if v.name not in renamed)
    return Fusion(kept_values, fusion.inputs, tuple(kept), outputs)


def _can_rename(expr: Expr, outputs: dict[str, Output], fusion: Fusion, renamed: dict[str, str]) -> bool:
    """A fusion output keeps its copy when renaming would make it an input, or the same value as
    another output, or drop what the definition asked of it."""
    result, source = expr.outputs[0], expr.inputs[0]
    if result not in outputs:
        return True
    out = outputs[result]
    if out.alias_input is not None or out.stride_order is not None:
        return False
    other_outputs = {renamed.get(o.name, o.name) for o in fusion.outputs if o.name != result}
    return source not in fusion.inputs and source not in other_outputs
