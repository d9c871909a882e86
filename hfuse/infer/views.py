"""Shape rules of the view ops (broadcast, expand, reshape, permute, squeeze, stride order), the resize
ops (slice, pad, cat) and triu: each checks and normalizes the attributes, and the layout algebra
gives the result shape."""

from __future__ import annotations

import math
from typing import Any

from hfuse.dtypes import int_range
from hfuse.infer.common import (
    Inferred,
    as_bool,
    as_int,
    as_int_tuple,
    check_attrs,
    expect_arity,
    expect_scalar,
    expect_tensor,
    fail,
    normalize_dim,
    normalize_dims,
    one_tensor,
    result_type,
    tensor_out,
)
from hfuse.ir import Op, Value
from hfuse.layout import movement


def _moved(op: Op, x: Value, attrs: dict[str, Any]) -> Inferred:
    """The normalized attributes, and the output of the movement of `x` they describe."""
    (move,) = movement(op, attrs, [x.shape])
    return Inferred(attrs, [tensor_out(x.dtype, move.result)])


def _required(op: Op, attrs: dict[str, Any], name: str) -> Any:
    if name not in attrs:
        raise fail(op, f"needs the attribute {name}")
    return attrs[name]


def broadcast_in_dim(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["shape", "broadcast_dims"])
    shape = list(as_int_tuple(op, "shape", _required(op, attrs, "shape")))
    dims = as_int_tuple(op, "broadcast_dims", _required(op, attrs, "broadcast_dims"))
    if len(dims) != x.rank:
        raise fail(
            op, f"broadcast_dims {list(dims)} must have one entry per input dim ({x.rank} for {x.describe()})"
        )
    if len(shape) < x.rank:
        raise fail(op, f"shape {shape} has rank {len(shape)}, lower than the input's {x.rank}")
    dims = tuple(normalize_dim(op, d, len(shape), "broadcast_dim") for d in dims)
    if any(a >= b for a, b in zip(dims, dims[1:], strict=False)):
        raise fail(op, f"broadcast_dims {list(dims)} must be strictly increasing output positions")
    for in_dim, out_dim in enumerate(dims):
        extent = x.shape[in_dim]
        if shape[out_dim] == -1:
            shape[out_dim] = extent
        if extent not in (1, shape[out_dim]):
            raise fail(
                op,
                f"input dim {in_dim} has extent {extent} but maps to output dim {out_dim} of extent "
                f"{shape[out_dim]}; it must be equal or 1",
            )
    if any(s < 0 for s in shape):
        raise fail(
            op, f"shape {shape} has a negative extent; -1 is allowed only at positions in broadcast_dims"
        )
    return _moved(op, x, {"shape": tuple(shape), "broadcast_dims": dims})


def broadcast(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["is_broadcast_dim"])
    flags = _required(op, attrs, "is_broadcast_dim")
    if not isinstance(flags, list | tuple):
        raise fail(op, f"is_broadcast_dim must be a list of bools, got {flags!r}")
    flags = tuple(as_bool(op, "is_broadcast_dim", f) for f in flags)
    if flags.count(False) != x.rank:
        raise fail(
            op,
            f"is_broadcast_dim {list(flags)} has {flags.count(False)} False entries; it needs one per "
            f"input dim ({x.rank} for {x.describe()})",
        )
    return _moved(op, x, {"is_broadcast_dim": flags})


def expand(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["shape"])
    shape = list(as_int_tuple(op, "shape", _required(op, attrs, "shape")))
    if len(shape) != x.rank:
        raise fail(op, f"shape {shape} must have one entry per input dim ({x.rank} for {x.describe()})")
    for i, (extent, target) in enumerate(zip(x.shape, shape, strict=True)):
        if target == -1:
            shape[i] = extent
        elif target < 0:
            raise fail(op, f"shape {shape} has the negative extent {target}; only -1 (keep) is allowed")
        elif extent not in (1, target):
            raise fail(op, f"dim {i} of extent {extent} cannot expand to {target}; only extent-1 dims expand")
    return _moved(op, x, {"shape": tuple(shape)})


def reshape(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["new_shape"])
    shape = list(as_int_tuple(op, "new_shape", _required(op, attrs, "new_shape")))
    if shape.count(-1) > 1:
        raise fail(op, f"new_shape {shape} has more than one -1; at most one extent can be inferred")
    if any(s < -1 for s in shape):
        raise fail(op, f"new_shape {shape} has a negative extent; extents must be >= 0, or one -1")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or x.numel % known:
            raise fail(
                op, f"cannot infer the -1 in new_shape {shape} for {x.describe()} ({x.numel} elements)"
            )
        shape[shape.index(-1)] = x.numel // known
    if math.prod(shape) != x.numel:
        raise fail(
            op,
            f"new_shape {shape} has {math.prod(shape)} elements but {x.describe()} has {x.numel}; "
            "they must match",
        )
    return _moved(op, x, {"new_shape": tuple(shape)})


def permute(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dims"])
    given = as_int_tuple(op, "dims", _required(op, attrs, "dims"))
    dims = tuple(d % x.rank if -x.rank <= d < x.rank else d for d in given)
    if sorted(dims) != list(range(x.rank)):
        raise fail(op, f"dims {list(given)} is not a permutation of 0..{x.rank - 1} for {x.describe()}")
    return _moved(op, x, {"dims": dims})


def squeeze(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["dims"])
    dims = normalize_dims(op, as_int_tuple(op, "dims", _required(op, attrs, "dims")), x.rank)
    for d in dims:
        if x.shape[d] != 1:
            raise fail(
                op, f"dim {d} of {x.describe()} has extent {x.shape[d]}; only extent-1 dims can be squeezed"
            )
    return _moved(op, x, {"dims": dims})


def stride_order(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["stride_order"])
    order = as_int_tuple(op, "stride_order", _required(op, attrs, "stride_order"))
    if sorted(order) != list(range(x.rank)):
        raise fail(
            op, f"stride_order {list(order)} is not a permutation of 0..{x.rank - 1} for {x.describe()}"
        )
    return _moved(op, x, {"stride_order": order})


def _clamp_index(index: int, extent: int) -> int:
    if index < 0:
        index += extent
    return min(max(index, 0), extent)


def slice_(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["starts", "ends", "strides"])
    starts = as_int_tuple(op, "starts", _required(op, attrs, "starts"))
    ends = as_int_tuple(op, "ends", _required(op, attrs, "ends"))
    strides = as_int_tuple(op, "strides", attrs.get("strides") or (1,) * len(starts))
    for name, entries in (("starts", starts), ("ends", ends), ("strides", strides)):
        if len(entries) != x.rank:
            raise fail(
                op, f"{name} {list(entries)} must have one entry per dim ({x.rank} for {x.describe()})"
            )
    if any(s != 1 for s in strides):
        raise fail(op, f"strides {list(strides)} are not supported; only stride 1 is")
    clamped_starts = tuple(_clamp_index(s, n) for s, n in zip(starts, x.shape, strict=True))
    clamped_ends = tuple(
        max(_clamp_index(e, n), s) for e, n, s in zip(ends, x.shape, clamped_starts, strict=True)
    )
    return _moved(op, x, {"starts": clamped_starts, "ends": clamped_ends, "strides": strides})


def pad(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [1, 2])
    check_attrs(op, attrs, ["pad_widths"])
    x = expect_tensor(op, inputs[0], "the operand")
    if len(inputs) == 2:
        _check_pad_value(op, x, expect_scalar(op, inputs[1], "value"))
    widths = as_int_tuple(op, "pad_widths", _required(op, attrs, "pad_widths"))
    if len(widths) % 2 or len(widths) > 2 * x.rank:
        raise fail(
            op,
            f"pad_widths {list(widths)} must be (left, right) pairs, innermost dim first, at most "
            f"{2 * x.rank} entries for {x.describe()}",
        )
    inferred = _moved(op, x, {"pad_widths": widths})
    for pair in range(len(widths) // 2):
        dim = x.rank - 1 - pair
        if inferred.outputs[0].shape[dim] < 0:
            raise fail(op, f"pad_widths {list(widths)} crop dim {dim} of extent {x.shape[dim]} below zero")
    return inferred


def _check_pad_value(op: Op, x: Value, value: Value) -> None:
    """A constant pad value must be one the padded tensor can hold (torch refuses the others)."""
    fill = value.const
    if fill is None:
        return
    if isinstance(fill, complex) and not x.dtype.is_complex:
        raise fail(
            op, f"the pad value {fill!r} is complex, but {x.describe()} holds real numbers; pad with one"
        )
    if x.dtype.is_int:
        low, high = int_range(x.dtype)
        if not (math.isfinite(fill) and low <= fill <= high):
            raise fail(
                op,
                f"the pad value {fill!r} does not fit {x.describe()}: {x.dtype.name} holds whole numbers "
                f"from {low} to {high}; pad with one of those",
            )


def cat(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    check_attrs(op, attrs, ["dim"])
    if not inputs:
        raise fail(op, "needs at least one tensor")
    tensors = [expect_tensor(op, v, f"operand {i}") for i, v in enumerate(inputs)]
    first = tensors[0]
    for t in tensors[1:]:
        if t.rank != first.rank:
            raise fail(op, f"operands must share one rank; {first.describe()} and {t.describe()} differ")
    dim = normalize_dim(op, as_int(op, "dim", attrs.get("dim", 0)), first.rank)
    for t in tensors[1:]:
        for d in range(first.rank):
            if d != dim and t.shape[d] != first.shape[d]:
                raise fail(
                    op,
                    f"{first.describe()} and {t.describe()} differ in dim {d}; "
                    f"only the cat dim {dim} may differ",
                )
    shape = movement(op, {"dim": dim}, [t.shape for t in tensors])[0].result
    return Inferred({"dim": dim}, [tensor_out(result_type(op, tensors), shape)])


def triu(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    x = one_tensor(op, inputs, attrs, ["diagonal"])
    if x.rank < 2:
        raise fail(op, f"needs a tensor of rank >= 2, got {x.describe()}")
    diagonal = as_int(op, "diagonal", attrs.get("diagonal", 0))
    return Inferred({"diagonal": diagonal}, [tensor_out(x.dtype, x.shape)])
