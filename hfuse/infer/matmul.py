"""Shape and dtype rules of matmul and linear."""

from __future__ import annotations

from typing import Any

from hfuse.infer.common import (
    FLOAT,
    Inferred,
    broadcast_extents,
    category,
    check_attrs,
    expect_arity,
    expect_tensor,
    fail,
    result_type,
    tensor_out,
)
from hfuse.ir import Op, Value


def _matmul_shape(op: Op, a: Value, b: Value) -> tuple[int, ...]:
    if a.rank == 0 or b.rank == 0:
        raise fail(op, f"operands must have rank >= 1, got {a.describe()} and {b.describe()}")
    a_shape = (1,) + a.shape if a.rank == 1 else a.shape
    b_shape = b.shape + (1,) if b.rank == 1 else b.shape
    if a_shape[-1] != b_shape[-2]:
        raise fail(
            op,
            f"inner extents differ: {a.describe()} has {a_shape[-1]} columns, {b.describe()} has "
            f"{b_shape[-2]} rows; they must be equal",
        )
    batch = broadcast_extents(op, [a_shape[:-2], b_shape[:-2]])
    shape = batch + ((a_shape[-2],) if a.rank > 1 else ()) + ((b_shape[-1],) if b.rank > 1 else ())
    return shape


def matmul(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    check_attrs(op, attrs, [])
    if op is Op.MATMUL:
        expect_arity(op, inputs, [2])
    else:
        expect_arity(op, inputs, [2, 3])
    a = expect_tensor(op, inputs[0], "the first operand")
    b = expect_tensor(op, inputs[1], "the second operand")
    for value in (a, b):
        if category(value.dtype) < FLOAT:
            raise fail(op, f"needs floating operands, got {value.describe()}; cast it to Float first")
    dtype = result_type(op, [a, b])
    if op is Op.MATMUL:
        return Inferred({}, [tensor_out(dtype, _matmul_shape(op, a, b))])
    if a.rank == 0 or b.rank not in (1, 2):
        raise fail(
            op, f"needs input of rank >= 1 and weight of rank 1 or 2, got {a.describe()}, {b.describe()}"
        )
    if a.shape[-1] != b.shape[-1]:
        raise fail(
            op,
            f"in_features differ: input {a.describe()} and weight {b.describe()} must share the last extent",
        )
    shape = a.shape[:-1] + ((b.shape[0],) if b.rank == 2 else ())
    if len(inputs) == 3:
        bias = inputs[2]
        if bias.is_tensor and bias.rank > 1:
            raise fail(op, f"bias must have rank 0 or 1, got {bias.describe()}")
        shape = broadcast_extents(op, [shape, bias.shape])
    return Inferred({}, [tensor_out(dtype, shape)])
