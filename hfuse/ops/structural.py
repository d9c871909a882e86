"""The ops that are not elementwise: cast, reductions, scans and sorts, views, resizes, creation,
masks, indexing, matmul and attention. One entry each: its shape rule, its torch meaning, and whether a kernel
computes it (codegen lowers it at an index) or torch does."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from hfuse.dtypes import DataType
from hfuse.infer import attention, creation, indexing, matmul, reductions, views
from hfuse.infer.elementwise import cast
from hfuse.ir import Op
from hfuse.ops import attention as attention_meaning
from hfuse.ops.definition import Computed, Cost, OpDef, Rule
from hfuse.ops.meaning import Meaning, Tensor, compute_dtype, upcast
from hfuse.ops.philox import random_meaning


def lowered(op: Op, rule: Rule, meaning: Meaning, cost: Cost = Cost.CHEAP) -> OpDef:
    """An op that codegen computes in a kernel, lowering it at each index."""
    return OpDef(op, rule, meaning, Computed.BY_LOWERING, cost=cost)


def in_torch(op: Op, rule: Rule, meaning: Meaning) -> OpDef:
    """An op that no kernel computes: torch runs it, in a segment of its own."""
    return OpDef(op, rule, meaning, Computed.IN_TORCH)


def _cast(x: Tensor, dtype: DataType) -> Tensor:
    """A complex value cast to a real dtype keeps its real part (torch does the same, with a warning)."""
    if x.is_complex() and not dtype.is_complex:
        x = x.real
    return upcast(x).to(dtype.torch)


def _dims_or_all(t: Tensor, dims: Sequence[int]) -> tuple[int, ...]:
    return tuple(dims) if dims else tuple(range(t.dim()))


def _reduce(op: Op) -> Meaning:
    def meaning(args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device):
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

    return meaning


def _statistics_input(x: Tensor, outs: Sequence[DataType]) -> Tensor:
    return upcast(x) if x.is_complex() else x.to(compute_dtype(outs[0]))


def _var(
    op: Op, args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType]
) -> Tensor | tuple[Tensor, ...]:
    x = _statistics_input(args[0], outs)
    dims = _dims_or_all(x, attrs["dims"])
    # the filter only where torch warns: it would break torch.compile's graph (as would a generator here)
    if math.prod([x.shape[d] for d in dims]) <= attrs["correction"]:
        with warnings.catch_warnings():
            # Too few elements for the correction gives inf or NaN, as in nvFuser; torch also warns.
            warnings.filterwarnings("ignore", message=".*degrees of freedom is <= 0", category=UserWarning)
            return _torch_var(op, x, dims, attrs)
    return _torch_var(op, x, dims, attrs)


def _torch_var(
    op: Op, x: Tensor, dims: tuple[int, ...], attrs: dict[str, Any]
) -> Tensor | tuple[Tensor, ...]:
    kwargs = {"dim": dims, "correction": attrs["correction"], "keepdim": attrs["keepdim"]}
    if op is Op.VAR:
        return torch.var(x, **kwargs)
    var, mean = torch.var_mean(x, **kwargs)
    return var, _welford_mean(x, mean, dims, attrs["keepdim"])


def _welford_mean(x: Tensor, mean: Tensor, dims: Sequence[int], keepdim: bool) -> Tensor:
    """torch's Welford mean of more than one element where one is infinite: inf where the infinity is
    reduced last, NaN where a finite element follows it (an order torch does not fix); NaN here."""
    if x.is_complex() or math.prod([x.shape[d] for d in dims]) < 2:
        return mean
    infinite = torch.isinf(x).any(dim=dims, keepdim=keepdim)
    return torch.where(infinite, torch.full_like(mean, math.nan), mean)


def _welford(args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType]) -> tuple[Tensor, ...]:
    x = _statistics_input(args[0], outs)
    dims = _dims_or_all(x, attrs["dims"])
    count = math.prod([x.shape[d] for d in dims])
    # a Welford mean, as nvFuser's: finite for a row of the largest value, NaN for a row with an infinity
    if count:
        _, mean = torch.var_mean(x, dim=dims, correction=0, keepdim=True)
    else:  # the filter only where torch warns: it would break torch.compile's graph
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*degrees of freedom is <= 0", category=UserWarning)
            _, mean = torch.var_mean(x, dim=dims, correction=0, keepdim=True)
    mean = _welford_mean(x, mean, dims, keepdim=True)
    var_sum = ((x - mean) ** 2).sum(dim=dims)
    n = torch.full(var_sum.shape, count, dtype=torch.int64, device=x.device)
    return mean.squeeze(dims) if dims else mean, var_sum, n


def _topk(args: list[Tensor], attrs: dict[str, Any]) -> tuple[Tensor, Tensor]:
    result = torch.topk(
        upcast(args[0]), attrs["k"], dim=attrs["dim"], largest=attrs["largest"], sorted=attrs["sorted"]
    )
    return result.values, result.indices


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
    widths = attrs["pad_widths"]
    if not widths:
        return x.clone()
    if len(args) < 2:
        return torch.constant_pad_nd(x, widths, 0)
    if x.is_floating_point() or x.is_complex():
        # the fill written where a padded mask is set: taking it out of its tensor (`.item()`) would break
        # torch.compile's graph
        outside = torch.constant_pad_nd(torch.zeros_like(x, dtype=torch.bool), widths, 1)
        fill = args[1].to(device=x.device, dtype=x.dtype)
        return torch.where(outside, fill, torch.constant_pad_nd(x, widths, 0))
    value = args[1].item()  # a fill no integer can hold (NaN, inf, past the range) is an error here
    value = bool(value) if x.dtype == torch.bool else int(value)
    # constant_pad_nd keeps an integer fill exact; F.pad passes it as a double (2**63 - 1 became -2**63)
    return torch.constant_pad_nd(x, widths, value)


def _full(
    args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device
) -> Tensor:
    return torch.full(attrs["shape"], args[0].item(), dtype=compute_dtype(outs[0]), device=device)


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


def _index_put(args: list[Tensor], outs: Sequence[DataType]) -> Tensor:
    dtype = compute_dtype(outs[0])
    acc, index, value = args[0].to(dtype), args[1].long(), args[2].to(dtype)
    return acc.index_put((index,), value, accumulate=True)


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


def _matmul(op: Op, args: list[Tensor], outs: Sequence[DataType]) -> Tensor:
    a, b, *bias = (t.to(compute_dtype(outs[0])) for t in args)
    if op is Op.MATMUL:
        return torch.matmul(a, b)
    return F.linear(a, b, bias[0] if bias else None)


STRUCTURAL = [
    lowered(Op.CAST, cast, lambda a, attrs, outs, dev: _cast(a[0], outs[0])),
    # reductions: lowered by the reduction and normalization kernels
    lowered(Op.SUM, reductions.reduction, _reduce(Op.SUM)),
    lowered(Op.MAX, reductions.reduction, _reduce(Op.MAX)),
    lowered(Op.MIN, reductions.reduction, _reduce(Op.MIN)),
    lowered(Op.PROD, reductions.reduction, _reduce(Op.PROD)),
    lowered(Op.VAR, reductions.variance, lambda a, attrs, outs, dev: _var(Op.VAR, a, attrs, outs)),
    lowered(Op.VAR_MEAN, reductions.variance, lambda a, attrs, outs, dev: _var(Op.VAR_MEAN, a, attrs, outs)),
    lowered(Op.WELFORD, reductions.welford, lambda a, attrs, outs, dev: _welford(a, attrs, outs)),
    in_torch(
        Op.CUMSUM,
        reductions.scan,
        lambda a, attrs, outs, dev: torch.cumsum(a[0].to(compute_dtype(outs[0])), attrs["dim"]),
    ),
    in_torch(
        Op.CUMPROD,
        reductions.scan,
        lambda a, attrs, outs, dev: torch.cumprod(a[0].to(compute_dtype(outs[0])), attrs["dim"]),
    ),
    in_torch(
        Op.CUMMAX,
        reductions.scan,
        lambda a, attrs, outs, dev: torch.cummax(a[0].to(compute_dtype(outs[0])), attrs["dim"]).values,
    ),
    in_torch(
        Op.CUMMIN,
        reductions.scan,
        lambda a, attrs, outs, dev: torch.cummin(a[0].to(compute_dtype(outs[0])), attrs["dim"]).values,
    ),
    in_torch(
        Op.ARGSORT,
        reductions.argsort,
        lambda a, attrs, outs, dev: torch.argsort(
            upcast(a[0]), dim=attrs["dim"], descending=attrs["descending"], stable=attrs["stable"]
        ),
    ),
    in_torch(Op.TOPK, reductions.topk, lambda a, attrs, outs, dev: _topk(a, attrs)),
    # views
    lowered(
        Op.BROADCAST_IN_DIM,
        views.broadcast_in_dim,
        lambda a, attrs, outs, dev: _broadcast_in_dim(a[0], attrs),
    ),
    lowered(Op.BROADCAST, views.broadcast, lambda a, attrs, outs, dev: _broadcast(a[0], attrs)),
    lowered(Op.EXPAND, views.expand, lambda a, attrs, outs, dev: a[0].expand(attrs["shape"])),
    lowered(Op.RESHAPE, views.reshape, lambda a, attrs, outs, dev: a[0].reshape(attrs["new_shape"])),
    lowered(Op.PERMUTE, views.permute, lambda a, attrs, outs, dev: a[0].permute(attrs["dims"])),
    lowered(
        Op.SQUEEZE,
        views.squeeze,
        lambda a, attrs, outs, dev: a[0].squeeze(attrs["dims"]) if attrs["dims"] else a[0],
    ),
    lowered(Op.STRIDE_ORDER, views.stride_order, lambda a, attrs, outs, dev: _stride_order(a[0], attrs)),
    # resize
    lowered(Op.SLICE, views.slice_, lambda a, attrs, outs, dev: _slice(a[0], attrs)),
    lowered(Op.PAD, views.pad, lambda a, attrs, outs, dev: _pad(a, attrs)),
    lowered(
        Op.CAT,
        views.cat,
        lambda a, attrs, outs, dev: torch.cat([t.to(compute_dtype(outs[0])) for t in a], dim=attrs["dim"]),
    ),
    # creation and masks
    lowered(Op.FULL, creation.full, _full),
    lowered(Op.IOTA, creation.iota, _iota),
    # ten Philox rounds per element
    lowered(Op.UNIFORM, creation.random_distribution, random_meaning(normal=False), Cost.LONG_MATH),
    lowered(Op.NORMAL, creation.random_distribution, random_meaning(normal=True), Cost.LONG_MATH),
    lowered(Op.TRIU, views.triu, lambda a, attrs, outs, dev: torch.triu(upcast(a[0]), attrs["diagonal"])),
    # indexing
    lowered(
        Op.INDEX_SELECT,
        indexing.index_select,
        lambda a, attrs, outs, dev: torch.index_select(a[0], attrs["dim"], a[1].long()),
    ),
    lowered(
        Op.SELECT,
        indexing.select,
        lambda a, attrs, outs, dev: torch.select(a[0], attrs["dim"], int(a[1].item())),
    ),
    lowered(
        Op.GATHER, indexing.gather, lambda a, attrs, outs, dev: torch.gather(a[0], attrs["dim"], a[1].long())
    ),
    lowered(
        Op.TAKE_ALONG_AXIS,
        indexing.take_along_axis,
        lambda a, attrs, outs, dev: torch.take_along_dim(a[0], a[1].long(), attrs["dim"]),
    ),
    in_torch(Op.SCATTER, indexing.scatter, lambda a, attrs, outs, dev: _scatter(a, attrs)),
    in_torch(
        Op.INDEX_PUT_ACCUMULATE,
        indexing.index_put_accumulate,
        lambda a, attrs, outs, dev: _index_put(a, outs),
    ),
    in_torch(Op.EMBEDDING_FWD, indexing.embedding_fwd, lambda a, attrs, outs, dev: _embedding(a, attrs)),
    # matmul-class
    in_torch(Op.MATMUL, matmul.matmul, lambda a, attrs, outs, dev: _matmul(Op.MATMUL, a, outs)),
    in_torch(Op.LINEAR, matmul.matmul, lambda a, attrs, outs, dev: _matmul(Op.LINEAR, a, outs)),
    # attention
    in_torch(Op.SDPFA_FWD, attention.sdpfa_fwd, attention_meaning.sdpfa_fwd),
    in_torch(Op.SDPFA_BWD, attention.sdpfa_bwd, attention_meaning.sdpfa_bwd),
]
