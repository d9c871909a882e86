"""Bytes a segment moves, counted from the IR (the runtime only measures time).

Reads: each element of a segment's input tensors that the segment actually reads, once: a slice
counts its slice, a broadcast (stride 0) input counts its distinct elements. Writes: each element of
the segment's outputs. Which input elements are read is found by walking the segment's exprs backwards
from its outputs with a mask of needed elements per value (through movements and broadcasting as the
layout algebra maps them); most ops need every element of their inputs, and only then is no mask
built (`EVERY`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import torch

from hfuse.ir import Expr, Family, Fusion, Op, Value
from hfuse.layout import (
    MOVEMENT_OPS,
    Movement,
    implicit_broadcast,
    movement,
    read_mask,
    reads_every_element,
)
from hfuse.segment.model import Group, SchedulerKind

EVERY = None  # the mask meaning "every element is needed"
Mask = torch.Tensor | None

_ELEMENTWISE = (Family.UNARY, Family.BINARY, Family.TERNARY, Family.CAST)


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
    out = fusion.value(expr.outputs[0])
    moves = _movements(expr, tensors, out)
    if moves is not None:
        return [(v.name, _read(move, out_mask)) for v, move in zip(tensors, moves, strict=True)]
    if out_mask is EVERY and expr.op is not Op.SELECT:
        return [(v.name, EVERY) for v in tensors]
    if out_mask is EVERY:
        out_mask = torch.ones(out.shape, dtype=torch.bool)
    rule = _RULES.get(expr.op) or _FAMILY_RULES.get(expr.op.family)
    if rule is None:
        return [(v.name, EVERY) for v in tensors]
    return [(v.name, rule(fusion, expr, v, out_mask, out)) for v in tensors]


def _movements(expr: Expr, tensors: list[Value], out: Value) -> tuple[Movement, ...] | None:
    """How `expr` reads each tensor operand, where it is a movement or reads them at its own index
    (elementwise ops with broadcasting, triu); None for other ops."""
    if expr.op in MOVEMENT_OPS:
        return movement(expr.op, expr.attr_dict, [v.shape for v in tensors])
    if expr.op.family in _ELEMENTWISE or expr.op is Op.TRIU:
        return tuple(implicit_broadcast(v.shape, out.shape) for v in tensors)
    return None


def _read(move: Movement, needed: Mask) -> Mask:
    if needed is EVERY:
        if reads_every_element(move):
            return EVERY
        needed = torch.ones(move.result, dtype=torch.bool)
    return read_mask(move, needed)


def _union(a: Mask, b: Mask) -> Mask:
    return EVERY if a is EVERY or b is EVERY else a | b


def _union_all(masks: list[Mask]) -> Mask:
    result = masks[0]
    for mask in masks[1:]:
        result = _union(result, mask)
    return result


# Each rule: (fusion, expr, one tensor operand x, mask of the expr's output, the output) -> mask of x.


def _reduction(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    dims = tuple(expr.attr("dims", ()))
    if not dims:
        return mask
    if not expr.attr("keepdim", False):
        for d in sorted(dims):
            mask = mask.unsqueeze(d)
    return mask.any(dim=dims, keepdim=True).expand(x.shape)


def _select(fusion: Fusion, expr: Expr, x: Value, mask: torch.Tensor, out: Value) -> Mask:
    index = fusion.value(expr.inputs[1]).const
    if index is None:  # a symbolic index may pick any element
        return EVERY
    read = torch.zeros(x.shape, dtype=torch.bool)
    read.select(expr.attr("dim"), int(index) % x.shape[expr.attr("dim")]).copy_(mask)
    return read


_RULES = {Op.SELECT: _select}
_FAMILY_RULES = {Family.REDUCTION: _reduction, Family.VAR: _reduction}
