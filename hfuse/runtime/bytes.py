"""Bytes a segment moves, counted from the IR (the runtime only measures time).

Reads: each element of a segment's input tensors that the segment actually reads, once: a slice
counts its slice, a broadcast (stride 0) input counts its distinct elements. Writes: each element of
the segment's outputs. Which input elements are read is found by walking the segment's exprs backwards
from its outputs with a mask of needed elements per value; most ops need every element of their
inputs, and only then is no mask built (`EVERY`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import torch

from hfuse.ir import Expr, Family, Fusion, Op, Value
from hfuse.segment.model import Group, SchedulerKind

EVERY = None  # the mask meaning "every element is needed"
Mask = torch.Tensor | None

_ELEMENTWISE = (Family.UNARY, Family.BINARY, Family.TERNARY, Family.CAST)
_PARTIAL_READERS = (Op.SLICE, Op.PAD, Op.SELECT)  # ops that may read only part of their input


def segment_bytes(fusion: Fusion, group: Group) -> tuple[int, int]:
    """(input bytes, output bytes) one segment moves. Alias segments move nothing."""
    if group.kind is SchedulerKind.ALIAS:
        return 0, 0
    needed = needed_elements(fusion, group.exprs, group.outputs)
    reads = sum(distinct_bytes(fusion.value(n), needed[n]) for n in group.inputs if n in needed)
    writes = sum(fusion.value(n).nbytes for n in set(group.outputs) if fusion.value(n).is_tensor)
    return reads, writes


def fusion_bytes(fusion: Fusion, groups: Iterable[Group]) -> tuple[int, int]:
    """(input bytes, output bytes) of the whole fusion: elements of its inputs that some segment reads,
    once, and its outputs that some segment writes. Traffic between segments is not counted."""
    inputs: dict[str, Mask] = {}
    written: set[str] = set()
    outputs = set(fusion.output_names)
    for group in groups:
        if group.kind is SchedulerKind.ALIAS:
            continue
        needed = needed_elements(fusion, group.exprs, group.outputs)
        for name in set(group.inputs) & set(fusion.inputs):
            if name in needed:
                inputs[name] = _union(inputs[name], needed[name]) if name in inputs else needed[name]
        written |= set(group.outputs) & outputs
    reads = sum(distinct_bytes(fusion.value(n), mask) for n, mask in inputs.items())
    writes = sum(fusion.value(n).nbytes for n in written if fusion.value(n).is_tensor)
    return reads, writes


def distinct_bytes(value: Value, mask: Mask) -> int:
    """Bytes of the distinct elements of `value` that `mask` selects (a stride-0 dim holds one element)."""
    if value.is_scalar:
        return 0
    broadcast_dims = tuple(
        d for d, (n, s) in enumerate(zip(value.shape, value.strides, strict=True)) if s == 0 and n > 1
    )
    if mask is EVERY:
        real = [n for d, n in enumerate(value.shape) if d not in broadcast_dims]
        return math.prod(real) * value.dtype.itemsize
    if broadcast_dims:
        mask = mask.any(dim=broadcast_dims)
    return int(mask.sum()) * value.dtype.itemsize


def needed_elements(fusion: Fusion, exprs: Sequence[Expr], outputs: Iterable[str]) -> dict[str, Mask]:
    """For every tensor the exprs read or write, the mask of its elements that `outputs` depend on.
    Values absent from the result are not needed at all."""
    needed: dict[str, Mask] = {name: EVERY for name in outputs}
    for expr in reversed(exprs):
        out_masks = [needed[n] for n in expr.outputs if n in needed]
        if not out_masks:
            continue
        out_mask = out_masks[0] if len(out_masks) == 1 else _union_all(out_masks)
        for name, mask in _input_masks(fusion, expr, out_mask):
            needed[name] = _union(needed[name], mask) if name in needed else mask
    return needed


def _input_masks(fusion: Fusion, expr: Expr, out_mask: Mask) -> list[tuple[str, Mask]]:
    tensors = [fusion.value(n) for n in expr.inputs if fusion.value(n).is_tensor]
    if out_mask is EVERY and expr.op not in _PARTIAL_READERS:
        return [(v.name, EVERY) for v in tensors]
    out = fusion.value(expr.outputs[0])
    if out_mask is EVERY:
        out_mask = torch.ones(out.shape, dtype=torch.bool)
    rule = _RULES.get(expr.op) or _FAMILY_RULES.get(expr.op.family)
    if rule is None:
        return [(v.name, EVERY) for v in tensors]
    return [(v.name, rule(fusion, expr, v, out_mask, out)) for v in tensors]


def _union(a: Mask, b: Mask) -> Mask:
    return EVERY if a is EVERY or b is EVERY else a | b


def _union_all(masks: list[Mask]) -> Mask:
    result = masks[0]
    for mask in masks[1:]:
        result = _union(result, mask)
    return result


def _any_to_shape(mask: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """Reduce a mask of a broadcast result to the shape of one operand (numpy broadcasting rules)."""
    extra = mask.dim() - len(shape)
    if extra:
        mask = mask.any(dim=tuple(range(extra)))
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and mask.shape[d] != 1)
    if dims:
        mask = mask.any(dim=dims, keepdim=True)
    return mask


# Each rule: (fusion, expr, one tensor operand x, mask of the expr's output, the output) -> mask of x.


def _elementwise(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    return _any_to_shape(mask, x.shape)


def _reduction(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    dims = tuple(expr.attr("dims", ()))
    if not dims:
        return mask
    if not expr.attr("keepdim", False):
        for d in sorted(dims):
            mask = mask.unsqueeze(d)
    return mask.any(dim=dims, keepdim=True).expand(x.shape)


def _broadcast_in_dim(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    kept = expr.attr("broadcast_dims")
    new_dims = tuple(d for d in range(out.rank) if d not in kept)
    if new_dims:
        mask = mask.any(dim=new_dims)
    return _any_to_shape(mask, x.shape)


def _broadcast(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    new_dims = tuple(d for d, is_new in enumerate(expr.attr("is_broadcast_dim")) if is_new)
    return mask.any(dim=new_dims) if new_dims else mask


def _reshape(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    return mask.reshape(x.shape)


def _permute(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    dims = expr.attr("dims")
    inverse = [0] * len(dims)
    for new, old in enumerate(dims):
        inverse[old] = new
    return mask.permute(inverse)


def _squeeze(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    for d in sorted(expr.attr("dims")):
        mask = mask.unsqueeze(d)
    return mask


def _same_shape(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    return mask


def _slice(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    read = torch.zeros(x.shape, dtype=torch.bool)
    bounds = zip(expr.attr("starts"), expr.attr("ends"), expr.attr("strides"), strict=True)
    read[tuple(slice(start, end, step) for start, end, step in bounds)] = mask
    return read


def _pad(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    widths = expr.attr("pad_widths")
    read = torch.zeros(x.shape, dtype=torch.bool)
    src, dst = [], []
    for d in range(x.rank):
        k = x.rank - 1 - d  # pad widths come innermost dim first
        left = widths[2 * k] if 2 * k < len(widths) else 0
        lo = max(0, -left)  # negative widths crop
        hi = max(lo, min(x.shape[d], out.shape[d] - left))
        src.append(slice(lo, hi))
        dst.append(slice(lo + left, hi + left))
    read[tuple(src)] = mask[tuple(dst)]
    return read


def _cat(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    dim, start = expr.attr("dim"), 0
    read = torch.zeros(x.shape, dtype=torch.bool)
    for name in expr.inputs:
        extent = fusion.value(name).shape[dim]
        if name == x.name:
            read |= mask.narrow(dim, start, extent)
        start += extent
    return read


def _select(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    index = fusion.value(expr.inputs[1]).const
    if index is None:  # a symbolic index may pick any element
        return EVERY
    read = torch.zeros(x.shape, dtype=torch.bool)
    read.select(expr.attr("dim"), int(index) % x.shape[expr.attr("dim")]).copy_(mask)
    return read


_RULES = {
    Op.BROADCAST_IN_DIM: _broadcast_in_dim,
    Op.BROADCAST: _broadcast,
    Op.EXPAND: _elementwise,
    Op.RESHAPE: _reshape,
    Op.PERMUTE: _permute,
    Op.SQUEEZE: _squeeze,
    Op.STRIDE_ORDER: _same_shape,
    Op.TRIU: _same_shape,
    Op.SLICE: _slice,
    Op.PAD: _pad,
    Op.CAT: _cat,
    Op.SELECT: _select,
}
_FAMILY_RULES = {
    **dict.fromkeys(_ELEMENTWISE, _elementwise),
    Family.REDUCTION: _reduction,
    Family.VAR: _reduction,
}
