"""The dtype rule of an elementwise op, as data: which operand types it takes and what type its result has;
and the rule of cast, whose result type is its attribute.

An `ElementwiseRule` is a shape rule like the others (call it with the op, its operands and attributes):
the result has the broadcast shape of the tensor operands, or is a scalar when every operand is one.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.infer.common import (
    BOOL,
    COMPLEX,
    INT,
    Inferred,
    as_dtype,
    broadcast_shapes,
    category,
    check_attrs,
    expect_arity,
    fail,
    floating,
    real_dtype,
    result_type,
    scalar_out,
    tensor_out,
)
from hfuse.ir import Op, Value

# a tensor made from Python numbers alone gets torch's default dtypes
_DEFAULT_OF_PYTHON_TYPE = {DataType.Double: DataType.Float, DataType.ComplexDouble: DataType.ComplexFloat}


class OperandTypes(enum.Enum):
    """The operand types an elementwise op is defined for."""

    ANY = "any type"
    REAL = "any type but complex"
    NOT_BOOL = "any type but Bool"
    INTEGER = "integers"
    INTEGER_OR_BOOL = "integers and Bool"


class ResultType(enum.Enum):
    """The type of an elementwise op's result, from its operands' promoted type."""

    PROMOTED = "the promoted type"
    FLOATING = "the promoted type, with integers and Bool computed as floating point"
    REAL = "the promoted type, with complex as its real part"
    BOOL = "Bool"


@dataclass(frozen=True, slots=True)
class ElementwiseRule:
    """`arity` operands of `operands` types; the result type comes from the operands at `typed_by`
    (every operand when None), promoted as torch.result_type does. With `held_by_result`, the other
    operands are converted to the result's type before the op computes (threshold's threshold and value,
    as nvFuser and torch convert them): a constant an integer result cannot hold is refused."""

    arity: int
    result: ResultType = ResultType.PROMOTED
    operands: OperandTypes = OperandTypes.ANY
    typed_by: tuple[int, ...] | None = None
    held_by_result: bool = False

    def __call__(self, op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
        expect_arity(op, inputs, [self.arity])
        check_attrs(op, attrs, [])
        for value in inputs:
            self._check_operand(op, value)
        dtype = self._result_dtype(op, inputs)
        if self.held_by_result and dtype.is_int:
            for k, value in enumerate(inputs):
                _check_held(op, k, value, dtype)
        shape = broadcast_shapes(op, inputs)
        if shape is None:
            return Inferred({}, [scalar_out(dtype)])
        return Inferred({}, [tensor_out(dtype, shape)])

    def _check_operand(self, op: Op, value: Value) -> None:
        kind = category(value.dtype)
        if self.operands is OperandTypes.INTEGER and kind != INT:
            raise fail(op, f"needs integer operands, got {value.describe()}; cast it to Int first")
        if self.operands is OperandTypes.INTEGER_OR_BOOL and kind > INT:
            raise fail(op, f"needs integer or Bool operands, got {value.describe()}; cast it to Int first")
        if self.operands is OperandTypes.REAL and kind == COMPLEX:
            raise fail(op, f"is not defined for complex operands, got {value.describe()}")
        if self.operands is OperandTypes.NOT_BOOL and kind == BOOL:
            raise fail(op, f"is not defined for Bool operands, got {value.describe()}; use logical_not")

    def _result_dtype(self, op: Op, operands: list[Value]) -> DataType:
        if self.result is ResultType.BOOL:
            return DataType.Bool
        is_tensor = any(v.is_tensor for v in operands)
        typing = operands if self.typed_by is None else [operands[k] for k in self.typed_by]
        dtype = result_type(op, typing)
        if is_tensor and not any(v.is_tensor for v in typing):
            dtype = _DEFAULT_OF_PYTHON_TYPE.get(dtype, dtype)
        if self.result is ResultType.FLOATING:
            return floating(dtype, is_tensor)
        if self.result is ResultType.REAL:
            return real_dtype(dtype)
        return dtype


def _check_held(op: Op, position: int, value: Value, dtype: DataType) -> None:
    const = value.const
    if isinstance(const, complex) or const is None or isinstance(const, bool):
        return
    info = torch.iinfo(dtype.torch)
    if not (math.isfinite(const) and info.min <= const <= info.max):
        raise fail(
            op,
            f"operand {position} ({const!r}) is converted to DataType.{dtype.name}, the type of the result, "
            f"which cannot hold it (it holds whole numbers from {info.min} to {info.max}); torch's "
            f"{op.frontend_name} refuses it too",
        )


def cast(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [1])
    check_attrs(op, attrs, ["dtype"])
    if "dtype" not in attrs:
        raise fail(op, "needs dtype=DataType.<type>")
    dtype = as_dtype(op, "dtype", attrs["dtype"])
    if dtype is DataType.Null:
        raise fail(op, "dtype DataType.Null is not a type to cast to; name one, e.g. DataType.Float")
    (x,) = inputs
    out = tensor_out(dtype, x.shape) if x.is_tensor else scalar_out(dtype)
    return Inferred({"dtype": dtype}, [out])
