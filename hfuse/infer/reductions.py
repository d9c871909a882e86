"""Shape and dtype rules of reductions (sum, max, min, prod, var, var_mean, welford), scans and sorts."""

from __future__ import annotations

from typing import Any

from hfuse.dtypes import DataType
from hfuse.infer.common import (
    COMPLEX,
    INT,
    Inferred,
    as_bool,
    as_dtype,
    as_int,
    as_int_tuple,
    category,
    fail,
    normalize_dim,
    normalize_dims,
    one_tensor,
    real_dtype,
    tensor_out,
)
from hfuse.ir import Op, Value


def _reduced_dims(op: Op, x: Value, attrs: dict[str, Any]) -> tuple[int, ...]:
    """Normalized, sorted reduction dims; a missing or empty list means every dim."""
    dims = normalize_dims(op, as_int_tuple(op, "dims", attrs.get("dims", ())), x.rank)
    return dims or tuple(range(x.rank))


def _reduced_shape(x: Value, dims: tuple[int, ...], keepdim: bool) -> list[int]:
    if keepdim:
        return [1 if i in dims else e for i, e in enumerate(x.shape)]
    return [e for i, e in enumerate(x.shape) if i not in dims]


def _statistics_dtype(x: Value) -> DataType:
    """Variances and means are kept in Float (Double stays Double, complex gives its real type)."""
    if x.dtype is DataType.Double or category(x.dtype) == COMPLEX:
        return real_dtype(x.dtype)
    return DataType.Float


def reduction(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dims", "keepdim", "dtype"])
    dims = _reduced_dims(op, x, attrs)
    keepdim = as_bool(op, "keepdim", attrs.get("keepdim", False))
    requested = as_dtype(op, "dtype", attrs.get("dtype", DataType.Null))
    dtype = requested
    if dtype is DataType.Null:
        accumulates = op in (Op.SUM, Op.PROD)
        dtype = DataType.Int if accumulates and category(x.dtype) <= INT else x.dtype
    normalized = {"dims": dims, "keepdim": keepdim, "dtype": requested}
    return Inferred(normalized, [tensor_out(dtype, _reduced_shape(x, dims, keepdim))])


def variance(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dims", "correction", "keepdim"])
    dims = _reduced_dims(op, x, attrs)
    keepdim = as_bool(op, "keepdim", attrs.get("keepdim", False))
    correction = as_int(op, "correction", attrs.get("correction", 1))
    if correction < 0:
        raise fail(op, f"correction {correction} is negative; use 0 (population) or 1 (sample)")
    shape = _reduced_shape(x, dims, keepdim)
    dtype = _statistics_dtype(x)
    outputs = [tensor_out(dtype, shape)]
    if op is Op.VAR_MEAN:
        mean_dtype = DataType.Float if category(x.dtype) <= INT or x.dtype.is_reduced_float else x.dtype
        outputs.append(tensor_out(mean_dtype, shape))
    return Inferred({"dims": dims, "correction": correction, "keepdim": keepdim}, outputs)


def welford(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dims"])
    if category(x.dtype) == COMPLEX:
        raise fail(op, f"is not defined for complex operands, got {x.describe()}")
    dims = _reduced_dims(op, x, attrs)
    shape = _reduced_shape(x, dims, keepdim=False)
    dtype = _statistics_dtype(x)
    outputs = [tensor_out(dtype, shape), tensor_out(dtype, shape), tensor_out(DataType.Int, shape)]
    return Inferred({"dims": dims}, outputs)


def scan(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dim"])
    if "dim" not in attrs:
        raise fail(op, "needs dim=<whole number>")
    dim = normalize_dim(op, as_int(op, "dim", attrs["dim"]), x.rank)
    # running sums and products of integers are int64, as in torch; running extremes keep the dtype
    widens = op in (Op.CUMSUM, Op.CUMPROD) and category(x.dtype) <= INT
    dtype = DataType.Int if widens else x.dtype
    return Inferred({"dim": dim}, [tensor_out(dtype, x.shape)])


def argsort(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dim", "descending", "stable"])
    dim = normalize_dim(op, as_int(op, "dim", attrs.get("dim", -1)), x.rank)
    normalized = {
        "dim": dim,
        "descending": as_bool(op, "descending", attrs.get("descending", False)),
        "stable": as_bool(op, "stable", attrs.get("stable", False)),
    }
    return Inferred(normalized, [tensor_out(DataType.Int, x.shape)])


def topk(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["k", "dim", "largest", "sorted"])
    if "k" not in attrs:
        raise fail(op, "needs k=<whole number>")
    dim = normalize_dim(op, as_int(op, "dim", attrs.get("dim", -1)), x.rank)
    k = as_int(op, "k", attrs["k"])
    if not 0 <= k <= x.shape[dim]:
        raise fail(
            op, f"k={k} is out of range for dim {dim} of extent {x.shape[dim]}; allowed is 0..{x.shape[dim]}"
        )
    normalized = {
        "k": k,
        "dim": dim,
        "largest": as_bool(op, "largest", attrs.get("largest", True)),
        "sorted": as_bool(op, "sorted", attrs.get("sorted", False)),
    }
    shape = list(x.shape)
    shape[dim] = k
    return Inferred(normalized, [tensor_out(x.dtype, shape), tensor_out(DataType.Int, shape)])
