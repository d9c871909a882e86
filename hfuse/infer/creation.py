"""Shape and dtype rules of the ops that make a tensor from scalars: full, iota and the random ops."""

from __future__ import annotations

from typing import Any

from hfuse.dtypes import DataType
from hfuse.infer.common import (
    BOOL,
    COMPLEX,
    Inferred,
    as_dtype,
    as_int,
    as_int_tuple,
    category,
    check_attrs,
    expect_arity,
    expect_int_dtype,
    expect_scalar,
    fail,
    tensor_out,
)
from hfuse.ir import Op, Value


def full(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [1])
    check_attrs(op, attrs, ["shape", "dtype"])
    fill = expect_scalar(op, inputs[0], "fill_value")
    shape = as_int_tuple(op, "shape", attrs.get("shape", ()))
    if any(s < 0 for s in shape):
        raise fail(op, f"shape {list(shape)} has a negative extent; extents must be >= 0")
    dtype = as_dtype(op, "dtype", attrs.get("dtype", DataType.Null))
    if dtype is DataType.Null:
        dtype = fill.dtype
    return Inferred({"shape": shape, "dtype": dtype}, [tensor_out(dtype, shape)])


def iota(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [0, 1, 2])
    check_attrs(op, attrs, ["length", "dtype"])
    for role, value in zip(("start", "step"), inputs, strict=False):
        expect_scalar(op, value, role)
    if "length" not in attrs:
        raise fail(op, "needs length=<whole number>")
    length = as_int(op, "length", attrs["length"])
    if length < 0:
        raise fail(op, f"length {length} is negative; it must be >= 0")
    dtype = as_dtype(op, "dtype", attrs.get("dtype", DataType.Int))
    if dtype is DataType.Null:
        dtype = DataType.Int
    if category(dtype) in (BOOL, COMPLEX):
        raise fail(op, f"dtype {dtype.name} is not allowed; use an integer or floating dtype")
    return Inferred({"length": length, "dtype": dtype}, [tensor_out(dtype, (length,))])


RANDOM_DTYPES = (DataType.Float, DataType.Double, DataType.Half, DataType.BFloat16)
_PARAMETERS = {Op.UNIFORM: ("minval", "maxval"), Op.NORMAL: ("mean", "std")}


def random_distribution(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    """uniform(minval, maxval, rng_seed, rng_offset) and normal(mean, std, rng_seed, rng_offset): real
    scalar parameters, integer seed and offset."""
    expect_arity(op, inputs, [4])
    check_attrs(op, attrs, ["shape", "dtype"])
    for role, value in zip(_PARAMETERS[op], inputs[:2], strict=True):
        expect_scalar(op, value, role)
        if category(value.dtype) == COMPLEX:
            raise fail(op, f"{role} must be a real number, got {value.describe()}")
    for role, value in zip(("rng_seed", "rng_offset"), inputs[2:], strict=True):
        expect_int_dtype(op, expect_scalar(op, value, role), role)
    shape = as_int_tuple(op, "shape", attrs.get("shape", ()))
    if any(s < 0 for s in shape):
        raise fail(op, f"shape {list(shape)} has a negative extent; extents must be >= 0")
    dtype = as_dtype(op, "dtype", attrs.get("dtype", DataType.Float))
    if dtype is DataType.Null:
        dtype = DataType.Float
    if dtype not in RANDOM_DTYPES:
        allowed = ", ".join(d.name for d in RANDOM_DTYPES)
        raise fail(op, f"dtype {dtype.name} is not allowed; random values are one of {allowed}")
    return Inferred({"shape": shape, "dtype": dtype}, [tensor_out(dtype, shape)])
