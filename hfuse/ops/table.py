"""The op table: one OpDef per Op, and the two things every caller does with it first: infer an op's
outputs (with constant folding of scalar results) and fold an op of constant scalars."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import torch

from hfuse import settings
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, LimitError, UnsupportedError
from hfuse.infer.common import Inferred, OutSpec
from hfuse.ir import Kind, Op, Value
from hfuse.ops.definition import OpDef
from hfuse.ops.elementwise import BINARY, TERNARY, UNARY
from hfuse.ops.meaning import scalar_tensor
from hfuse.ops.structural import STRUCTURAL

Number = bool | int | float | complex

DEFINITIONS: tuple[OpDef, ...] = (*UNARY, *BINARY, *TERNARY, *STRUCTURAL)
OPS: dict[Op, OpDef] = {d.op: d for d in DEFINITIONS}


def op_def(op: Op) -> OpDef:
    """Everything hfuse knows about `op`."""
    try:
        return OPS[op]
    except KeyError:
        raise UnsupportedError(f"{op.frontend_name}: hfuse has no definition of this op yet") from None


def _check_rank(op: Op, values: Sequence[Value] | Sequence[OutSpec]) -> None:
    limit = settings.MAX_RANK.as_int()
    for value in values:
        if len(value.shape) > limit:
            raise LimitError(
                f"{op.frontend_name}: a tensor of rank {len(value.shape)} exceeds the highest rank {limit}; "
                f"raise {settings.MAX_RANK.env} to allow it"
            )


def infer(op: Op, inputs: Sequence[Value], attrs: dict[str, Any]) -> Inferred:
    """The normalized attributes and the output specs of `op` applied to `inputs`. A scalar result of
    constant scalars is a constant too: its value is the op's meaning."""
    definition = op_def(op)
    _check_rank(op, inputs)
    inferred = definition.rule(op, list(inputs), dict(attrs))
    _check_rank(op, inferred.outputs)
    if not _is_constant(inputs, inferred.outputs):
        return inferred
    constants = [(v.const, v.dtype) for v in inputs]
    folded = [
        replace(o, const=fold_constant(op, constants, inferred.attrs, o.dtype)) for o in inferred.outputs
    ]
    return Inferred(inferred.attrs, folded)


def _is_constant(inputs: Sequence[Value], outputs: Sequence[OutSpec]) -> bool:
    """Whether the results are constants: scalars computed from constant scalars only."""
    return (
        bool(inputs)
        and all(v.const is not None for v in inputs)
        and all(o.kind is Kind.SCALAR for o in outputs)
    )


def fold_constant(
    op: Op, operands: Sequence[tuple[Number, DataType]], attrs: dict[str, Any], dtype: DataType
) -> Number:
    """The value of `op` applied to constant scalars, as a Python number of `dtype`."""
    device = torch.device("cpu")
    args = [scalar_tensor(const, operand_dtype, device) for const, operand_dtype in operands]
    try:
        result = op_def(op).meaning(args, attrs, [dtype], device)
    except (RuntimeError, ZeroDivisionError) as err:
        shown = ", ".join(repr(c) for c, _ in operands)
        raise DefinitionError(f"{op.frontend_name}({shown}) has no value: {err}") from None
    assert isinstance(result, torch.Tensor)
    return result.to(dtype.torch).item()
