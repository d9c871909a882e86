"""Alias analysis: fusion outputs that are pure views of a fusion input need no kernel.

An output qualifies when it is reached from a tensor input by a chain of layout-only ops (SET,
SLICE, RESHAPE where torch.view would accept it, PERMUTE, BROADCAST, BROADCAST_IN_DIM, EXPAND,
SQUEEZE, and STRIDE_ORDER when the layout already has that order). The view's storage offset,
shape and strides are computed step by step from the input's own strides. The values of the
chain get the view's strides, and where a chain value is also read by other exprs those exprs get
a private copy of the chain (contiguous, computed by a kernel), so that the alias exprs serve the
aliased outputs only.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from hfuse.ir import Expr, Fusion, Op, Value, contiguous_strides

VIEW_OPS = frozenset({
    Op.SET, Op.SLICE, Op.RESHAPE, Op.PERMUTE, Op.BROADCAST, Op.BROADCAST_IN_DIM, Op.EXPAND, Op.SQUEEZE,
    Op.STRIDE_ORDER,
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class AliasInfo:
    """A fusion output that needs no kernel: a strided view of a fusion input.

    The output is `input.as_strided(shape, strides, storage_offset=offset)` (element units,
    offset relative to the input's own storage offset)."""

    output: str
    input: str
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class View:
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]


def view_strides(
    shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int]
) -> tuple[int, ...] | None:
    """Strides of `new_shape` viewing the same elements, or None where torch.view would refuse
    (a reshape that merges dims which are not contiguous with each other)."""
    if math.prod(shape) == 0 or not shape:
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_dim = len(new_shape) - 1
    chunk_base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for dim in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[dim]
        chunk_ends = dim == 0 or (
            shape[dim - 1] != 1 and strides[dim - 1] != tensor_numel * chunk_base_stride
        )
        if not chunk_ends:
            continue
        while view_dim >= 0 and (view_numel < tensor_numel or new_shape[view_dim] == 1):
            new_strides[view_dim] = view_numel * chunk_base_stride
            view_numel *= new_shape[view_dim]
            view_dim -= 1
        if view_numel != tensor_numel:
            return None
        if dim > 0:
            chunk_base_stride = strides[dim - 1]
            tensor_numel = view_numel = 1
    return tuple(new_strides) if view_dim == -1 else None


def has_stride_order(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> bool:
    """Whether the layout orders dims as `order` does (order[i] is dim i's rank in memory, 0 innermost).
    Dims of extent 1 have no place in memory and are ignored."""
    dims = [d for d in sorted(range(len(shape)), key=lambda d: -order[d]) if shape[d] != 1]
    return all(strides[outer] >= strides[inner] for outer, inner in zip(dims, dims[1:], strict=False))


def apply_view(expr: Expr, view: View, result_shape: tuple[int, ...]) -> View | None:
    """The view after `expr`, or None where `expr` would have to move data."""
    shape, strides = view.shape, view.strides
    match expr.op:
        case Op.SET:
            return view
        case Op.SLICE:
            if any(step != 1 for step in expr.attr("strides")):
                return None
            offset = view.offset + sum(s * st for s, st in zip(expr.attr("starts"), strides, strict=True))
            return View(offset, result_shape, strides)
        case Op.RESHAPE:
            new = view_strides(shape, strides, result_shape)
            return None if new is None else View(view.offset, result_shape, new)
        case Op.PERMUTE:
            return View(view.offset, result_shape, tuple(strides[d] for d in expr.attr("dims")))
        case Op.BROADCAST_IN_DIM:
            out = [0] * len(result_shape)
            for in_dim, out_dim in enumerate(expr.attr("broadcast_dims")):
                out[out_dim] = strides[in_dim] if shape[in_dim] == result_shape[out_dim] else 0
            return View(view.offset, result_shape, tuple(out))
        case Op.BROADCAST:
            kept = iter(strides)
            out = tuple(0 if is_new else next(kept) for is_new in expr.attr("is_broadcast_dim"))
            return View(view.offset, result_shape, out)
        case Op.EXPAND:
            out = tuple(s if n == m else 0 for s, n, m in zip(strides, shape, result_shape, strict=True))
            return View(view.offset, result_shape, out)
        case Op.SQUEEZE:
            dropped = set(expr.attr("dims"))
            return View(
                view.offset, result_shape, tuple(s for i, s in enumerate(strides) if i not in dropped)
            )
        case Op.STRIDE_ORDER:
            return view if has_stride_order(shape, strides, expr.attr("stride_order")) else None
    return None


def _view_chain(fusion: Fusion, name: str, producers: dict[str, Expr]) -> tuple[str, list[Expr]] | None:
    """The tensor input and the view exprs (in order) leading to `name`, or None."""
    chain: list[Expr] = []
    while name not in fusion.inputs:
        expr = producers.get(name)
        if expr is None or expr.op not in VIEW_OPS:
            return None
        chain.append(expr)
        name = expr.inputs[0]
    if not fusion.value(name).is_tensor:
        return None
    return name, chain[::-1]


def find_aliases(fusion: Fusion) -> tuple[tuple[AliasInfo, ...], dict[str, View]]:
    """Every output that is a view of an input, and the view of each value on the chains."""
    producers = {name: e for e in fusion.exprs for name in e.outputs}
    candidates: dict[str, tuple[str, list[Expr], dict[str, View]]] = {}
    for out in fusion.outputs:
        if out.alias_input is not None or out.name in candidates:
            continue
        found = _view_chain(fusion, out.name, producers)
        if found is None:
            continue
        source, chain = found
        value = fusion.value(source)
        view: View | None = View(0, value.shape, value.strides)
        chain_views = {}
        for expr in chain:
            view = apply_view(expr, view, fusion.value(expr.outputs[0]).shape)
            if view is None:
                break
            chain_views[expr.outputs[0]] = view
        if view is None:
            continue
        if out.stride_order is not None and not has_stride_order(view.shape, view.strides, out.stride_order):
            continue
        candidates[out.name] = source, chain, chain_views
    # A chain may pass through another output only when that output is itself an alias.
    written = {o.name for o in fusion.outputs if o.name not in candidates}
    while dropped := [
        n for n, (_, chain, _) in candidates.items() if any(e.outputs[0] in written for e in chain)
    ]:
        for name in dropped:
            del candidates[name]
        written.update(dropped)
    aliases, views = [], {}
    for name, (source, _, chain_views) in candidates.items():
        view = chain_views.get(name) or View(0, fusion.value(source).shape, fusion.value(source).strides)
        aliases.append(AliasInfo(name, source, view.offset, view.shape, view.strides))
        views.update(chain_views)
    return tuple(aliases), views


def mark_aliases(fusion: Fusion, *, enabled: bool = True) -> tuple[Fusion, tuple[AliasInfo, ...]]:
    """The fusion with alias chains given view strides (and private copies for other readers),
    and the alias of each output that is a view of an input."""
    if not enabled:
        return fusion, ()
    aliases, views = find_aliases(fusion)
    if not aliases:
        return fusion, ()
    needed = _read_elsewhere(fusion, views)
    copies = _copy_names(fusion, needed)
    values = [
        dataclasses.replace(v, strides=views[v.name].strides) if v.name in views else v for v in fusion.values
    ]
    exprs: list[Expr] = []
    for expr in fusion.exprs:
        if expr.outputs[0] in views:
            exprs.append(expr)
            if expr.outputs[0] in needed:
                source = fusion.value(expr.outputs[0])
                copy = copies[source.name]
                values.append(
                    Value(copy, source.kind, source.dtype, source.shape, contiguous_strides(source.shape))
                )
                exprs.append(_rename(expr, copies))
        else:
            exprs.append(_rename(expr, copies))
    return Fusion(tuple(values), fusion.inputs, tuple(exprs), fusion.outputs), aliases


def _read_elsewhere(fusion: Fusion, views: dict[str, View]) -> set[str]:
    """Chain values that an expr outside the chains reads, with the chain values they come from."""
    needed: set[str] = set()
    for expr in fusion.exprs:
        if expr.outputs[0] not in views:
            needed.update(name for name in expr.inputs if name in views)
    producers = {e.outputs[0]: e for e in fusion.exprs if e.outputs[0] in views}
    stack = list(needed)
    while stack:
        source = producers[stack.pop()].inputs[0]
        if source in views and source not in needed:
            needed.add(source)
            stack.append(source)
    return needed


def _copy_names(fusion: Fusion, needed: set[str]) -> dict[str, str]:
    numbers = [int(m.group(1)) for v in fusion.values if (m := re.fullmatch(r"T(\d+)", v.name))]
    next_number = max(numbers, default=-1) + 1
    names = {}
    for expr in fusion.exprs:
        if expr.outputs[0] in needed:
            names[expr.outputs[0]] = f"T{next_number}"
            next_number += 1
    return names


def _rename(expr: Expr, names: dict[str, str]) -> Expr:
    return dataclasses.replace(
        expr,
        inputs=tuple(names.get(n, n) for n in expr.inputs),
        outputs=tuple(names.get(n, n) for n in expr.outputs),
    )
