"""Helpers that every shape and dtype rule uses: operand checks, dim normalization, type promotion,
broadcasting."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError
from hfuse.ir import Kind, Op, Value


@dataclass(frozen=True, slots=True)
class OutSpec:
    """What shape inference says one output of an expr is."""

    kind: Kind
    dtype: DataType
    shape: tuple[int, ...] = ()
    const: bool | int | float | complex | None = None


@dataclass(frozen=True, slots=True)
class Inferred:
    """Normalized attributes of an expr and the specs of its outputs."""

    attrs: dict[str, Any]
    outputs: list[OutSpec] = field(default_factory=list)


# dtype categories, in torch's promotion order
BOOL, INT, FLOAT, COMPLEX = range(4)
_PYTHON_TYPE_OF_CATEGORY = (DataType.Bool, DataType.Int, DataType.Double, DataType.ComplexDouble)
_REAL_OF_COMPLEX = {DataType.ComplexFloat: DataType.Float, DataType.ComplexDouble: DataType.Double}


def fail(op: Op, message: str) -> DefinitionError:
    return DefinitionError(f"{op.frontend_name}: {message}")


def category(dtype: DataType) -> int:
    if dtype is DataType.Bool:
        return BOOL
    if dtype.is_int:
        return INT
    if dtype.is_complex:
        return COMPLEX
    return FLOAT


def real_dtype(dtype: DataType) -> DataType:
    return _REAL_OF_COMPLEX.get(dtype, dtype)


def tensor_out(dtype: DataType, shape: Sequence[int]) -> OutSpec:
    return OutSpec(Kind.TENSOR, dtype, tuple(int(s) for s in shape))


def scalar_out(dtype: DataType, const: Any = None) -> OutSpec:
    return OutSpec(Kind.SCALAR, dtype, (), const)


def expect_arity(op: Op, inputs: Sequence[Value], counts: Sequence[int]) -> None:
    if len(inputs) not in counts:
        allowed = " or ".join(str(c) for c in counts)
        raise fail(op, f"takes {allowed} operands, got {len(inputs)}")


def expect_tensor(op: Op, value: Value, role: str) -> Value:
    if not value.is_tensor:
        raise fail(op, f"{role} must be a tensor, got the scalar {value.describe()}")
    return value


def expect_scalar(op: Op, value: Value, role: str) -> Value:
    if not value.is_scalar:
        raise fail(op, f"{role} must be a scalar, got the tensor {value.describe()}")
    return value


def expect_int_dtype(op: Op, value: Value, role: str) -> Value:
    if not value.dtype.is_int:
        raise fail(op, f"{role} must have an integer dtype (Int or Int32), got {value.describe()}")
    return value


def check_attrs(op: Op, attrs: dict[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(attrs) - set(allowed))
    if unknown:
        takes = ", ".join(allowed) if allowed else "no attributes"
        raise fail(op, f"unknown attribute {', '.join(unknown)}; it takes {takes}")


def one_tensor(op: Op, inputs: Sequence[Value], attrs: dict[str, Any], allowed: Sequence[str]) -> Value:
    """The single tensor operand of `op`, after checking its arity and attribute names."""
    expect_arity(op, inputs, [1])
    check_attrs(op, attrs, allowed)
    return expect_tensor(op, inputs[0], "the operand")


def as_int(op: Op, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(op, f"{name} must be a whole number, got {value!r}")
    return value


def as_int_tuple(op: Op, name: str, value: Any) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    if not isinstance(value, list | tuple):
        raise fail(op, f"{name} must be a list of whole numbers, got {value!r}")
    return tuple(as_int(op, name, v) for v in value)


def as_bool(op: Op, name: str, value: Any) -> bool:
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    raise fail(op, f"{name} must be True or False, got {value!r}")


def as_dtype(op: Op, name: str, value: Any) -> DataType:
    if not isinstance(value, DataType):
        raise fail(op, f"{name} must be a DataType, got {value!r}")
    return value


def normalize_dim(op: Op, dim: int, rank: int, name: str = "dim") -> int:
    if not -rank <= dim < rank:
        allowed = f"[{-rank}, {rank - 1}]" if rank else "nothing (the operand has rank 0)"
        raise fail(op, f"{name} {dim} is out of range for rank {rank}; allowed is {allowed}")
    return dim % rank


def normalize_dims(op: Op, dims: Sequence[int], rank: int, name: str = "dims") -> tuple[int, ...]:
    normalized = [normalize_dim(op, d, rank, name=name[:-1] if name.endswith("s") else name) for d in dims]
    if len(set(normalized)) != len(normalized):
        raise fail(op, f"{name} {list(dims)} names a dimension twice")
    return tuple(sorted(normalized))


def result_type(op: Op, operands: Sequence[Value]) -> DataType:
    """torch.result_type over the operands, with scalars weak like Python numbers.

    With no tensor operand the result is the Python type of the highest category."""
    tensors = [v.dtype for v in operands if v.is_tensor]
    scalar_category = max((category(v.dtype) for v in operands if v.is_scalar), default=-1)
    if not tensors:
        return _PYTHON_TYPE_OF_CATEGORY[scalar_category]
    result = tensors[0]
    for dtype in tensors[1:]:
        if dtype is result:
            continue
        try:
            result = DataType.from_torch(torch.promote_types(result.torch, dtype.torch))
        except (RuntimeError, TypeError, ValueError):
            raise fail(op, f"cannot combine {result.name} and {dtype.name}; cast one operand first") from None
    if scalar_category <= category(result):
        return result
    if scalar_category == INT:
        return DataType.Int
    if scalar_category == FLOAT:
        return DataType.Float
    return DataType.ComplexDouble if result is DataType.Double else DataType.ComplexFloat


def floating(dtype: DataType, is_tensor: bool) -> DataType:
    """The dtype of a float function (exp, sqrt, ...) of an operand of `dtype`: ints become float."""
    if category(dtype) >= FLOAT:
        return dtype
    return DataType.Float if is_tensor else DataType.Double


def broadcast_extents(op: Op, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """numpy broadcasting: lower ranks get leading dims, extent 1 stretches."""
    rank = max((len(s) for s in shapes), default=0)
    result = [1] * rank
    for shape in shapes:
        for i, extent in enumerate(shape, start=rank - len(shape)):
            if extent == result[i] or extent == 1:
                continue
            if result[i] == 1:
                result[i] = extent
                continue
            listed = ", ".join(str(list(s)) for s in shapes)
            raise fail(
                op,
                f"shapes {listed} do not broadcast: dim {i - rank} has extents {result[i]} and {extent}; "
                "extents must match or be 1 (use broadcast_in_dim or expand)",
            )
    return tuple(result)


def broadcast_shapes(op: Op, operands: Sequence[Value]) -> tuple[int, ...] | None:
    """The broadcast shape of the tensor operands; None when every operand is a scalar."""
    shapes = [v.shape for v in operands if v.is_tensor]
    return broadcast_extents(op, shapes) if shapes else None
