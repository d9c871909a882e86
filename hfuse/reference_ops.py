"""The meaning of every op, as torch code: a table from Op to a function of torch tensors.

Each function takes the operands (scalars as 0-dim tensors), the expr's attributes, the dtypes of
its outputs and the device, and returns one tensor or a tuple of them. Half, BFloat16 and fp8 math is done in
Float and rounded to the output dtype by the caller, as kernels that upcast after loading do.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F

from hfuse.dtypes import DataType
from hfuse.ir import Family, Op

Tensor = torch.Tensor
OpFunction = Callable[
    [list[Tensor], dict[str, Any], Sequence[DataType], torch.device], Tensor | tuple[Tensor, ...]
]


def compute_dtype(dtype: DataType) -> torch.dtype:
    """The dtype math is done in for a result of `dtype`: reduced floats compute in Float."""
    return torch.float32 if dtype.is_reduced_float else dtype.torch


def upcast(t: Tensor) -> Tensor:
    if t.is_floating_point() and t.element_size() <= 2:
        return t.float()
    return t


def _logical_right_shift(a: Tensor, b: Tensor) -> Tensor:
    bits = a.element_size() * 8
    b = b.to(a.dtype)
    in_range = (b > 0) & (b < bits)
    safe = torch.where(in_range, b, torch.ones_like(b))
    # arithmetic shift, then clear the copies of the sign bit that it shifted in
    mask = (torch.ones_like(a) << (bits - safe)) - 1
    shifted = (a >> safe) & mask
    return torch.where(b <= 0, a, torch.where(in_range, shifted, torch.zeros_like(a)))


UNARY: dict[Op, Callable[[Tensor], Tensor]] = {
    Op.ABS: torch.abs, Op.ACOS: torch.acos, Op.ACOSH: torch.acosh, Op.ASIN: torch.asin,
    Op.ASINH: torch.asinh, Op.ATAN: torch.atan, Op.ATANH: torch.atanh, Op.CEIL: torch.ceil,
    Op.COS: torch.cos, Op.COSH: torch.cosh, Op.EXP: torch.exp, Op.EXP2: torch.exp2, Op.EXPM1: torch.expm1,
    Op.ERF: torch.erf, Op.ERFC: torch.erfc, Op.ERFINV: torch.erfinv,
    Op.ERFCINV: lambda x: torch.erfinv(1 - x), Op.FLOOR: torch.floor, Op.FRAC: torch.frac,
    Op.LGAMMA: torch.lgamma, Op.LOG: torch.log,
    Op.LOG10: torch.log10, Op.LOG1P: torch.log1p, Op.LOG2: torch.log2, Op.NEG: torch.neg,
    Op.LOGICAL_NOT: torch.logical_not, Op.BITWISE_NOT: torch.bitwise_not, Op.RELU: torch.relu,
    Op.RECIPROCAL: torch.reciprocal, Op.ROUND: torch.round, Op.RSQRT: torch.rsqrt, Op.SET: torch.clone,
    Op.SEGMENT_SET: torch.clone, Op.SIGN: torch.sign, Op.SIGMOID: torch.sigmoid, Op.SIGNBIT: torch.signbit,
    Op.SILU: F.silu, Op.SIN: torch.sin, Op.SINH: torch.sinh, Op.SQRT: torch.sqrt, Op.TAN: torch.tan,
    Op.TANH: torch.tanh, Op.TRUNC: torch.trunc, Op.ISFINITE: torch.isfinite, Op.ISINF: torch.isinf,
    Op.ISNAN: torch.isnan, Op.ISNEGINF: torch.isneginf, Op.ISPOSINF: torch.isposinf, Op.ISREAL: torch.isreal,
    Op.REAL: torch.real, Op.IMAG: lambda x: torch.imag(x) if x.is_complex() else torch.zeros_like(x),
}  # fmt: skip
BINARY: dict[Op, Callable[[Tensor, Tensor], Tensor]] = {
    Op.ADD: torch.add, Op.ATAN2: torch.atan2, Op.TRUEDIV: torch.true_divide, Op.FMOD: torch.fmod,
    Op.MUL: torch.mul, Op.NEXTAFTER: torch.nextafter, Op.POW: torch.pow, Op.REMAINDER: torch.remainder,
    Op.SUB: torch.sub, Op.MINIMUM: torch.minimum, Op.MAXIMUM: torch.maximum, Op.MOD: torch.fmod,
    Op.EQ: torch.eq, Op.GE: torch.ge, Op.GT: torch.gt, Op.LE: torch.le, Op.LT: torch.lt, Op.NE: torch.ne,
    Op.LOGICAL_AND: torch.logical_and, Op.LOGICAL_OR: torch.logical_or, Op.BITWISE_AND: torch.bitwise_and,
    Op.BITWISE_OR: torch.bitwise_or, Op.BITWISE_XOR: torch.bitwise_xor,
    Op.BITWISE_LEFT_SHIFT: torch.bitwise_left_shift, Op.BITWISE_RIGHT_SHIFT: torch.bitwise_right_shift,
    Op.LOGICAL_RIGHT_SHIFT: _logical_right_shift, Op.GCD: torch.gcd,
    Op.DIV: lambda a, b: torch.div(a, b, rounding_mode="trunc" if not a.is_floating_point() else None),
}  # fmt: skip
TERNARY: dict[Op, Callable[..., Tensor]] = {
    Op.WHERE: lambda c, a, b: torch.where(c.bool(), a, b),
    Op.LERP: torch.lerp,
    Op.CLAMP: lambda x, lo, hi: torch.clamp(x, lo, hi),
    Op.THRESHOLD: lambda x, t, v: torch.where(x <= t, v, x),
    Op.ADDCMUL: lambda x, t1, t2, v: x + v * (t1 * t2),
}
# ops whose operands keep their own dtype (reduced floats still compute in Float)
_OWN_OPERAND_DTYPE = frozenset({Op.REAL, Op.IMAG, Op.ABS})


def elementwise(op: Op, args: list[Tensor], out_dtype: DataType) -> Tensor:
    if op is Op.NEXTAFTER:  # one step in the output's own precision: no upcast
        return torch.nextafter(*(a.to(out_dtype.torch) for a in args))
    if out_dtype is DataType.Bool or op in _OWN_OPERAND_DTYPE:
        args = [upcast(a) for a in args]
    elif op is Op.WHERE:
        args = [args[0]] + [a.to(compute_dtype(out_dtype)) for a in args[1:]]
    else:
        args = [a.to(compute_dtype(out_dtype)) for a in args]
    if op.family is Family.UNARY:
        return UNARY[op](*args)
    if op.family is Family.BINARY:
        return BINARY[op](*args)
    return TERNARY[op](*args)


def _dims_or_all(t: Tensor, dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(dims) if dims else tuple(range(t.dim()))


def _reduce(op: Op, args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType]) -> Tensor:
    x = args[0].to(compute_dtype(outs[0]))
    dims, keepdim = attrs["dims"], attrs["keepdim"]
    if not dims:
        return x.clone()
    if op is Op.SUM:
        return x.sum(dim=dims, keepdim=keepdim)
    if op is Op.MAX:
        return x.amax(dim=dims, keepdim=keepdim)
    if op is Op.MIN:
        return x.amin(dim=dims, keepdim=keepdim)
    for d in sorted(dims, reverse=True):
        x = x.prod(dim=d, keepdim=keepdim)
    return x


def _statistics_input(x: Tensor, outs: Sequence[DataType]) -> Tensor:
    return upcast(x) if x.is_complex() else x.to(compute_dtype(outs[0]))


def _var(
    op: Op, args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType]
) -> Tensor | tuple[Tensor, ...]:
    x = _statistics_input(args[0], outs)
    dims = _dims_or_all(x, attrs["dims"])
    kwargs = {"dim": dims, "correction": attrs["correction"], "keepdim": attrs["keepdim"]}
    with warnings.catch_warnings():
        # Too few elements for the correction gives inf or NaN, as in nvFuser; torch also warns.
        warnings.filterwarnings("ignore", message=".*degrees of freedom is <= 0", category=UserWarning)
        return torch.var(x, **kwargs) if op is Op.VAR else torch.var_mean(x, **kwargs)


def _welford(args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType]) -> tuple[Tensor, ...]:
    x = _statistics_input(args[0], outs)
    dims = _dims_or_all(x, attrs["dims"])
    mean = x.mean(dim=dims, keepdim=True)
    var_sum = ((x - mean) ** 2).sum(dim=dims)
    count = 1
    for d in dims:
        count *= x.shape[d]
    n = torch.full(var_sum.shape, count, dtype=torch.int64, device=x.device)
    return mean.squeeze(dims) if dims else mean, var_sum, n


def _broadcast_in_dim(x: Tensor, attrs: dict[str, Any]) -> Tensor:
    shape, dims = attrs["shape"], attrs["broadcast_dims"]
    for position in range(len(shape)):
        if position not in dims:
            x = x.unsqueeze(position)
    return x.expand(shape)


def _broadcast(x: Tensor, attrs: dict[str, Any]) -> Tensor:
    for position, is_new in enumerate(attrs["is_broadcast_dim"]):
        if is_new:
            x = x.unsqueeze(position)
    return x


def _stride_order(x: Tensor, attrs: dict[str, Any]) -> Tensor:
    order = attrs["stride_order"]
    outer_to_inner = sorted(range(x.dim()), key=lambda d: -order[d])
    inverse = sorted(range(x.dim()), key=lambda d: outer_to_inner[d])
    return x.permute(outer_to_inner).contiguous().permute(inverse)


def _slice(x: Tensor, attrs: dict[str, Any]) -> Tensor:
    return x[tuple(slice(s, e) for s, e in zip(attrs["starts"], attrs["ends"], strict=True))]


def _pad(args: list[Tensor], attrs: dict[str, Any]) -> Tensor:
    x = upcast(args[0])
    value = args[1].item() if len(args) > 1 else 0
    if x.dtype == torch.bool:
        value = bool(value)
    elif not x.is_floating_point() and not x.is_complex():
        value = int(value)
    widths = attrs["pad_widths"]
    return F.pad(x, widths, value=value) if widths else x.clone()


def _iota(
    args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device
) -> Tensor:
    dtype = compute_dtype(outs[0])
    start = args[0] if args else torch.zeros((), dtype=dtype, device=device)
    step = args[1] if len(args) > 1 else torch.ones((), dtype=dtype, device=device)
    return torch.arange(attrs["length"], dtype=dtype, device=device) * step.to(dtype) + start.to(dtype)


def _scatter(args: list[Tensor], attrs: dict[str, Any]) -> Tensor:
    x, index, src = upcast(args[0]), args[1].long(), args[2]
    if src.dim() == 0:
        return torch.scatter(x, attrs["dim"], index, src.item())
    return torch.scatter(x, attrs["dim"], index, src.to(x.dtype))


def _embedding(args: list[Tensor], attrs: dict[str, Any]) -> Tensor:
    indices, weight = args[0].long(), upcast(args[1])
    if attrs["max_norm"] is not None:
        weight = weight.clone()  # F.embedding renormalizes the rows it reads in place
    return F.embedding(
        indices,
        weight,
        attrs["padding_idx"],
        attrs["max_norm"],
        attrs["norm_type"],
        attrs["scale_grad_by_freq"],
        attrs["sparse"],
    )


def _index_put(args: list[Tensor], outs: Sequence[DataType]) -> Tensor:
    dtype = compute_dtype(outs[0])
    acc, index, value = args[0].to(dtype), args[1].long(), args[2].to(dtype)
    return acc.index_put((index,), value, accumulate=True)


def _matmul(op: Op, args: list[Tensor], outs: Sequence[DataType]) -> Tensor:
    a, b, *bias = (t.to(compute_dtype(outs[0])) for t in args)
    if op is Op.MATMUL:
        return torch.matmul(a, b)
    return F.linear(a, b, bias[0] if bias else None)


def _full(
    args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device
) -> Tensor:
    return torch.full(attrs["shape"], args[0].item(), dtype=compute_dtype(outs[0]), device=device)


def _cast(x: Tensor, dtype: DataType) -> Tensor:
    """A complex value cast to a real dtype keeps its real part (torch does the same, with a warning)."""
    if x.is_complex() and not dtype.is_complex:
        x = x.real
    return upcast(x).to(dtype.torch)


def _topk(args: list[Tensor], attrs: dict[str, Any]) -> tuple[Tensor, Tensor]:
    result = torch.topk(
        upcast(args[0]), attrs["k"], dim=attrs["dim"], largest=attrs["largest"], sorted=attrs["sorted"]
    )
    return result.values, result.indices


def _run_elementwise(op: Op) -> OpFunction:
    return lambda a, attrs, outs, dev: elementwise(op, a, outs[0])


def _run_reduce(op: Op) -> OpFunction:
    return lambda a, attrs, outs, dev: _reduce(op, a, attrs, outs)


OPS: dict[Op, OpFunction] = {
    Op.CAST: lambda a, attrs, outs, dev: _cast(a[0], outs[0]),
    Op.VAR: lambda a, attrs, outs, dev: _var(Op.VAR, a, attrs, outs),
    Op.VAR_MEAN: lambda a, attrs, outs, dev: _var(Op.VAR_MEAN, a, attrs, outs),
    Op.WELFORD: lambda a, attrs, outs, dev: _welford(a, attrs, outs),
    Op.CUMSUM: lambda a, attrs, outs, dev: torch.cumsum(a[0].to(compute_dtype(outs[0])), attrs["dim"]),
    Op.ARGSORT: lambda a, attrs, outs, dev: torch.argsort(
        upcast(a[0]), dim=attrs["dim"], descending=attrs["descending"], stable=attrs["stable"]
    ),
    Op.TOPK: lambda a, attrs, outs, dev: _topk(a, attrs),
    Op.BROADCAST_IN_DIM: lambda a, attrs, outs, dev: _broadcast_in_dim(a[0], attrs),
    Op.BROADCAST: lambda a, attrs, outs, dev: _broadcast(a[0], attrs),
    Op.EXPAND: lambda a, attrs, outs, dev: a[0].expand(attrs["shape"]),
    Op.RESHAPE: lambda a, attrs, outs, dev: a[0].reshape(attrs["new_shape"]),
    Op.PERMUTE: lambda a, attrs, outs, dev: a[0].permute(attrs["dims"]),
    Op.SQUEEZE: lambda a, attrs, outs, dev: a[0].squeeze(attrs["dims"]) if attrs["dims"] else a[0],
    Op.STRIDE_ORDER: lambda a, attrs, outs, dev: _stride_order(a[0], attrs),
    Op.SLICE: lambda a, attrs, outs, dev: _slice(a[0], attrs),
    Op.PAD: lambda a, attrs, outs, dev: _pad(a, attrs),
    Op.CAT: lambda a, attrs, outs, dev: torch.cat(
        [t.to(compute_dtype(outs[0])) for t in a], dim=attrs["dim"]
    ),
    Op.FULL: _full,
    Op.IOTA: _iota,
    Op.TRIU: lambda a, attrs, outs, dev: torch.triu(upcast(a[0]), attrs["diagonal"]),
    Op.INDEX_SELECT: lambda a, attrs, outs, dev: torch.index_select(a[0], attrs["dim"], a[1].long()),
    Op.SELECT: lambda a, attrs, outs, dev: torch.select(a[0], attrs["dim"], int(a[1].item())),
    Op.GATHER: lambda a, attrs, outs, dev: torch.gather(a[0], attrs["dim"], a[1].long()),
    Op.TAKE_ALONG_AXIS: lambda a, attrs, outs, dev: torch.take_along_dim(a[0], a[1].long(), attrs["dim"]),
    Op.SCATTER: lambda a, attrs, outs, dev: _scatter(a, attrs),
    Op.INDEX_PUT_ACCUMULATE: lambda a, attrs, outs, dev: _index_put(a, outs),
    Op.EMBEDDING_FWD: lambda a, attrs, outs, dev: _embedding(a, attrs),
    Op.MATMUL: lambda a, attrs, outs, dev: _matmul(Op.MATMUL, a, outs),
    Op.LINEAR: lambda a, attrs, outs, dev: _matmul(Op.LINEAR, a, outs),
    **{op: _run_reduce(op) for op in (Op.SUM, Op.MAX, Op.MIN, Op.PROD)},
    **{op: _run_elementwise(op) for op in (*UNARY, *BINARY, *TERNARY)},
}
