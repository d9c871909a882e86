"""Shape and dtype rules of scaled dot-product attention: nvFuser's sdpfa_fwd and sdpfa_bwd.

query [N*, H, L, E], key [N*, H, S, E] and value [N*, H, S, Ev] share one floating dtype and their batch
dims N*, H. The forward gives the output [N*, H, L, Ev] in that dtype, the logsumexp [N*, H, L] in Float,
and the random state of the flash kernel's dropout (philox_seed, philox_offset) as 0-dim Int tensors,
nvFuser's CPU-scalar form. The backward gives the gradients of query, key and value.

An expr has the optional operands its `has_*` attributes name, in the order of `operand_names`.
"""

from __future__ import annotations

from typing import Any

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.infer.common import (
    FLOAT,
    INT,
    Inferred,
    as_bool,
    category,
    check_attrs,
    expect_arity,
    expect_scalar,
    expect_tensor,
    fail,
    tensor_out,
)
from hfuse.ir import Op, Value

ATTENTION_DTYPES = (DataType.Half, DataType.BFloat16, DataType.Float)
FORWARD_FLAGS = ("has_bias", "has_mask", "has_scale")
BACKWARD_FLAGS = ("has_scale",)
_BACKWARD_TENSORS = ("grad_output", "query", "key", "value", "output", "logsumexp")
DROPOUT_REFUSAL = (
    "dropout_p > 0 draws the flash kernel's random dropout mask, which hfuse cannot reproduce, so the "
    "result could not be checked; define it with dropout_p=0.0"
)


def operand_names(op: Op, attrs: dict[str, Any]) -> tuple[str, ...]:
    """The role of each operand of an attention expr, in order: nvFuser's argument names."""
    scale = ("scale",) if attrs.get("has_scale") else ()
    if op is Op.SDPFA_FWD:
        bias = ("bias",) if attrs.get("has_bias") else ()
        mask = ("mask",) if attrs.get("has_mask") else ()
        return ("query", "key", "value", *bias, *mask, "dropout_p", "is_causal", *scale)
    return (*_BACKWARD_TENSORS, "dropout_p", "is_causal", "philox_seed", "philox_offset", *scale)


def _operands(op: Op, inputs: list[Value], attrs: dict[str, Any], flags: tuple[str, ...]) -> dict[str, Value]:
    check_attrs(op, attrs, flags)
    for flag in flags:
        attrs[flag] = as_bool(op, flag, attrs.get(flag, False))
    names = operand_names(op, attrs)
    expect_arity(op, inputs, [len(names)])
    return dict(zip(names, inputs, strict=True))


def _check_qkv(op: Op, given: dict[str, Value]) -> tuple[Value, Value, Value]:
    q, k, v = (expect_tensor(op, given[name], name) for name in ("query", "key", "value"))
    if q.dtype not in ATTENTION_DTYPES:
        allowed = ", ".join(d.name for d in ATTENTION_DTYPES)
        raise fail(op, f"query must be {allowed}, got {q.describe()}; cast it first")
    if k.dtype is not q.dtype or v.dtype is not q.dtype:
        raise fail(
            op,
            f"query, key and value must share one dtype, got {q.describe()}, {k.describe()}, {v.describe()}",
        )
    if q.rank < 4 or k.rank != q.rank or v.rank != q.rank:
        raise fail(
            op,
            "query [N*, H, L, E], key [N*, H, S, E] and value [N*, H, S, Ev] must have one rank of at "
            f"least 4, got {q.describe()}, {k.describe()}, {v.describe()}",
        )
    if k.shape[:-2] != q.shape[:-2] or v.shape[:-2] != q.shape[:-2]:
        raise fail(
            op,
            f"query, key and value must share the batch and head dims N*, H, got {q.describe()}, "
            f"{k.describe()}, {v.describe()}",
        )
    if k.shape[-1] != q.shape[-1]:
        raise fail(
            op, f"query and key must share the head size E (last dim), got {q.describe()}, {k.describe()}"
        )
    if v.shape[-2] != k.shape[-2]:
        raise fail(op, f"key and value must share the sequence length S, got {k.describe()}, {v.describe()}")
    return q, k, v


def _check_scalars(op: Op, given: dict[str, Value]) -> None:
    dropout_p = expect_scalar(op, given["dropout_p"], "dropout_p")
    if category(dropout_p.dtype) not in (INT, FLOAT):
        raise fail(op, f"dropout_p must be a real number, got {dropout_p.describe()}")
    if dropout_p.const is not None and dropout_p.const < 0:
        raise fail(op, f"dropout_p is {dropout_p.const!r}; a probability is at least 0")
    if dropout_p.const is not None and dropout_p.const > 0:
        raise UnsupportedError(f"{op.frontend_name}: dropout_p is {dropout_p.const!r}: {DROPOUT_REFUSAL}")
    is_causal = expect_scalar(op, given["is_causal"], "is_causal")
    if is_causal.dtype is not DataType.Bool:
        raise fail(op, f"is_causal must be a Bool, got {is_causal.describe()}")
    if "scale" in given:
        scale = expect_scalar(op, given["scale"], "scale")
        if category(scale.dtype) not in (INT, FLOAT):
            raise fail(op, f"scale must be a real number, got {scale.describe()}")


def _check_scores_operand(
    op: Op, name: str, operand: Value, scores: tuple[int, ...], dtype: DataType
) -> None:
    """bias and mask: of the scores' rank, each extent the scores' own or 1 (broadcast)."""
    expect_tensor(op, operand, name)
    if operand.dtype is not dtype:
        raise fail(op, f"{name} must be {dtype.name}, got {operand.describe()}")
    if operand.rank != len(scores) or any(
        n not in (1, m) for n, m in zip(operand.shape, scores, strict=True)
    ):
        raise fail(
            op,
            f"{name} must broadcast to the scores [N*, H, L, S] = {list(scores)} with the same rank, "
            f"got {operand.describe()}",
        )


def sdpfa_fwd(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    given = _operands(op, inputs, attrs, FORWARD_FLAGS)
    q, k, v = _check_qkv(op, given)
    scores = q.shape[:-1] + (k.shape[-2],)
    if "bias" in given:
        _check_scores_operand(op, "bias", given["bias"], scores, q.dtype)
    if "mask" in given:
        _check_scores_operand(op, "mask", given["mask"], scores, DataType.Bool)
    _check_scalars(op, given)
    outputs = [
        tensor_out(q.dtype, q.shape[:-1] + (v.shape[-1],)),
        tensor_out(DataType.Float, q.shape[:-1]),
        tensor_out(DataType.Int, ()),
        tensor_out(DataType.Int, ()),
    ]
    return Inferred(attrs, outputs)


def sdpfa_bwd(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    given = _operands(op, inputs, attrs, BACKWARD_FLAGS)
    q, k, v = _check_qkv(op, given)
    out_shape = q.shape[:-1] + (v.shape[-1],)
    for name in ("grad_output", "output"):
        tensor = expect_tensor(op, given[name], name)
        if tensor.dtype is not q.dtype or tensor.shape != out_shape:
            value = tensor.describe()
            raise fail(
                op,
                f"{name} must be {q.dtype.name}{list(out_shape)} (the forward's output), got {value}",
            )
    logsumexp = expect_tensor(op, given["logsumexp"], "logsumexp")
    if logsumexp.dtype is not DataType.Float or logsumexp.shape != q.shape[:-1]:
        raise fail(
            op, f"logsumexp must be Float{list(q.shape[:-1])} as the forward's, got {logsumexp.describe()}"
        )
    for name in ("philox_seed", "philox_offset"):
        expect_tensor(op, given[name], name)
    _check_scalars(op, given)
    return Inferred(
        attrs, [tensor_out(q.dtype, q.shape), tensor_out(k.dtype, k.shape), tensor_out(v.dtype, v.shape)]
    )
