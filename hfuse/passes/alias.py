"""Alias analysis: fusion outputs that are pure views of a fusion input need no kernel.

An output qualifies when it is reached from a tensor input by a chain of layout-only ops (SET,
SLICE, RESHAPE where torch.view would accept it, PERMUTE, BROADCAST, BROADCAST_IN_DIM, EXPAND,
SQUEEZE, and STRIDE_ORDER when the layout already has that order). The view's storage offset,
shape and strides are computed step by step from the input's own strides by the layout algebra.
The values of the chain get the view's strides, and where a chain value is also read by other
exprs those exprs get a private copy of the chain (contiguous, computed by a kernel), so that the
alias exprs serve the aliased outputs only.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from hfuse.ir import Expr, Fusion, Op, Value, contiguous_strides
from hfuse.layout import MOVEMENT_OPS, View, has_stride_order, movement_of, view_after

VIEW_OPS = MOVEMENT_OPS - {Op.PAD, Op.CAT}  # a pad and a cat write values of their own (a fill, pieces)


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


def apply_view(expr: Expr, view: View, values: dict[str, Value]) -> View | None:
    """The view after `expr`, or None where `expr` would have to move data (or, for a stride_order, where
    the layout lacks the order asked for)."""
    order = expr.attr("stride_order")
    if expr.op is Op.STRIDE_ORDER and not has_stride_order(view.shape, view.strides, order):
        return None
    (move,) = movement_of(expr, values)
    return view_after(move, view)


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
    values = fusion.value_map
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
            view = apply_view(expr, view, values)
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
