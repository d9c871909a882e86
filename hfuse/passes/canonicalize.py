"""Canonicalization: exprs that do not change their operand are folded into it.

A SET, a reshape to the same shape, an identity permute, a full slice, a zero pad, a cast to the
same dtype (and the other no-op views listed in `is_noop`) are removed and their result is renamed
to their operand everywhere it is used. SEGMENT_SET is kept: it is the user's request for a kernel
boundary, not a computation.
"""

from __future__ import annotations

import dataclasses

from hfuse.ir import Expr, Fusion, Op, Output, Value


def is_noop(expr: Expr, values: dict[str, Value]) -> bool:
    """Whether `expr` returns its (only tensor) operand unchanged: same shape, dtype and elements."""
    if len(expr.outputs) != 1 or not expr.inputs:
        return False
    source, result = values[expr.inputs[0]], values[expr.outputs[0]]
    if not source.is_tensor or source.shape != result.shape or source.dtype != result.dtype:
        return False
    rank = source.rank
    match expr.op:
        case Op.SET | Op.CAST:
            return True
        case Op.RESHAPE | Op.EXPAND | Op.SQUEEZE | Op.BROADCAST:
            return True  # same shape in and out: nothing was split, merged, added or removed
        case Op.PERMUTE:
            return tuple(expr.attr("dims")) == tuple(range(rank))
        case Op.BROADCAST_IN_DIM:
            return tuple(expr.attr("broadcast_dims")) == tuple(range(rank))
        case Op.SLICE:
            return all(s == 0 for s in expr.attr("starts")) and all(st == 1 for st in expr.attr("strides"))
        case Op.PAD:
            return all(w == 0 for w in expr.attr("pad_widths"))
        case Op.CAT:
            return len(expr.inputs) == 1
        case Op.STRIDE_ORDER:
            row_major = tuple(range(rank - 1, -1, -1))
            return tuple(expr.attr("stride_order")) == row_major and source.is_contiguous
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
