"""Shape rules of the indexing ops: index_select, select, gather, take_along_axis, scatter,
index_put_accumulate, embedding_fwd."""

from __future__ import annotations

from typing import Any

from hfuse.infer.common import (
    Inferred,
    as_bool,
    as_int,
    check_attrs,
    expect_arity,
    expect_int_dtype,
    expect_scalar,
    expect_tensor,
    fail,
    normalize_dim,
    tensor_out,
)
from hfuse.ir import Op, Value


def _data_and_index(
    op: Op, inputs: list[Value], attrs: dict[str, Any], count: int = 2
) -> tuple[Value, Value, int]:
    expect_arity(op, inputs, [count])
    check_attrs(op, attrs, ["dim"])
    x = expect_tensor(op, inputs[0], "the operand")
    index = expect_int_dtype(op, inputs[1], "index")
    if "dim" not in attrs:
        raise fail(op, "needs dim=<whole number>")
    dim = normalize_dim(op, as_int(op, "dim", attrs["dim"]), x.rank)
    return x, index, dim


def _same_rank(op: Op, x: Value, index: Value) -> None:
    expect_tensor(op, index, "index")
    if index.rank != x.rank:
        raise fail(op, f"index {index.describe()} must have the rank of {x.describe()}")


def index_select(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x, index, dim = _data_and_index(op, inputs, attrs)
    expect_tensor(op, index, "index")
    if index.rank > 1:
        raise fail(op, f"index must be 1-D (or 0-D, one index), got {index.describe()}")
    shape = list(x.shape)
    shape[dim] = index.shape[0] if index.rank else 1  # as torch: a 0-D index selects one slice
    return Inferred({"dim": dim}, [tensor_out(x.dtype, shape)])


def select(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x, index, dim = _data_and_index(op, inputs, attrs)
    expect_scalar(op, index, "index")
    if index.const is not None and not -x.shape[dim] <= index.const < x.shape[dim]:
        raise fail(op, f"index {index.const} is out of range for dim {dim} of extent {x.shape[dim]}")
    shape = [e for i, e in enumerate(x.shape) if i != dim]
    return Inferred({"dim": dim}, [tensor_out(x.dtype, shape)])


def gather(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x, index, dim = _data_and_index(op, inputs, attrs)
    _same_rank(op, x, index)
    for d, (extent, index_extent) in enumerate(zip(x.shape, index.shape, strict=True)):
        if d != dim and index_extent > extent:
            raise fail(op, f"index extent {index_extent} exceeds the operand's {extent} in dim {d}")
    return Inferred({"dim": dim}, [tensor_out(x.dtype, index.shape)])


def take_along_axis(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x, index, dim = _data_and_index(op, inputs, attrs)
    _same_rank(op, x, index)
    shape = []
    for d, (extent, index_extent) in enumerate(zip(x.shape, index.shape, strict=True)):
        if d == dim:
            shape.append(index_extent)
        elif extent == index_extent or 1 in (extent, index_extent):
            shape.append(extent if index_extent == 1 else index_extent)
        else:
            raise fail(
                op,
                f"index {index.describe()} and {x.describe()} differ in dim {d}; extents must match or be 1",
            )
    return Inferred({"dim": dim}, [tensor_out(x.dtype, shape)])


def scatter(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x, index, dim = _data_and_index(op, inputs, attrs, count=3)
    _same_rank(op, x, index)
    src = inputs[2]
    if src.is_tensor:
        if src.rank != x.rank:
            raise fail(op, f"src {src.describe()} must have the rank of {x.describe()}")
        for d in range(x.rank):
            if index.shape[d] > src.shape[d] or (d != dim and index.shape[d] > x.shape[d]):
                raise fail(op, f"index {index.describe()} is larger than src or the operand in dim {d}")
    return Inferred({"dim": dim}, [tensor_out(x.dtype, x.shape)])


def index_put_accumulate(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [3])
    check_attrs(op, attrs, [])
    acc = expect_tensor(op, inputs[0], "acc")
    index = expect_int_dtype(op, expect_tensor(op, inputs[1], "index"), "index")
    value = expect_tensor(op, inputs[2], "value")
    if acc.rank < 1 or index.rank != 1:
        raise fail(op, f"needs acc of rank >= 1 and a 1-D index, got {acc.describe()} and {index.describe()}")
    expected = index.shape + acc.shape[1:]
    if value.shape != expected:
        raise fail(
            op, f"value {value.describe()} must have shape {list(expected)} (index extent, then acc's dims)"
        )
    return Inferred({}, [tensor_out(acc.dtype, acc.shape)])


def embedding_fwd(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [2])
    check_attrs(op, attrs, ["padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"])
    indices = expect_int_dtype(op, expect_tensor(op, inputs[0], "input"), "input")
    weight = expect_tensor(op, inputs[1], "weight")
    if weight.rank != 2:
        raise fail(op, f"weight must be 2-D (num_embeddings, embedding_dim), got {weight.describe()}")
    padding_idx = attrs.get("padding_idx")
    if padding_idx is not None:
        padding_idx = normalize_dim(
            op, as_int(op, "padding_idx", padding_idx), weight.shape[0], "padding_idx"
        )
    max_norm = attrs.get("max_norm")
    if max_norm is not None and (isinstance(max_norm, bool) or not isinstance(max_norm, int | float)):
        raise fail(op, f"max_norm must be a number or None, got {max_norm!r}")
    norm_type = attrs.get("norm_type", 2.0)
    if isinstance(norm_type, bool) or not isinstance(norm_type, int | float):
        raise fail(op, f"norm_type must be a number, got {norm_type!r}")
    normalized = {
        "padding_idx": padding_idx,
        "max_norm": None if max_norm is None else float(max_norm),
        "norm_type": float(norm_type),
        "scale_grad_by_freq": as_bool(op, "scale_grad_by_freq", attrs.get("scale_grad_by_freq", False)),
        "sparse": as_bool(op, "sparse", attrs.get("sparse", False)),
    }
    return Inferred(normalized, [tensor_out(weight.dtype, indices.shape + (weight.shape[1],))])
