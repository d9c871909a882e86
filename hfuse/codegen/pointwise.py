"""Pointwise kernels: a flat 1-D index over the group's iteration space, in the outputs' memory order.

The segmenter's plan gives the space (`Group.space`); every output is written at each of its indices,
by the same program (one index, shared loads).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hfuse.codegen.code import Body
from hfuse.codegen.indexing import delinearize
from hfuse.codegen.kernel import Part, cdiv, needs_wide_index, next_power_of_2
from hfuse.codegen.lower import Index, Lowering, Reducer
from hfuse.codegen.options import Options
from hfuse.errors import UnsupportedError
from hfuse.ir import Fusion
from hfuse.layout import memory_order
from hfuse.ops import Cost, op_def
from hfuse.segment.model import Group, IterSpace


def planned_space(group: Group) -> IterSpace:
    """What the segmenter planned the group's kernel to iterate over."""
    if group.space is None:
        raise UnsupportedError(
            f"group {group.id} has no iteration space: generate kernels for the groups `segment` makes"
        )
    return group.space


def written_over(group: Group, fusion: Fusion) -> tuple[tuple[int, ...], list[str]]:
    """The shape a pointwise or transpose group iterates over, and the tensors it writes at each index."""
    shape = planned_space(group).shape
    names = list(dict.fromkeys(group.outputs))
    if not names:
        raise UnsupportedError(f"group {group.id} has no outputs to compute")
    for name in names:
        value = fusion.value(name)
        if not value.is_tensor:
            raise UnsupportedError(f"group {group.id} writes the scalar {name}; kernels write tensors only")
        if value.shape != shape:
            raise UnsupportedError(
                f"group {group.id} iterates over {list(shape)} but writes {value.describe()}; "
                "write it from another kernel"
            )
    return shape, names


def flat_part(
    group: Group,
    fusion: Fusion,
    shape: tuple[int, ...],
    names: Sequence[str],
    options: Options,
    reducer: Reducer | None = None,
) -> Part:
    """A program per block of the flat index over `shape`, writing `names` at each index. `reducer`: where
    the group's reductions come from, when it has any (a split's flat last launch)."""
    values = [fusion.value(n) for n in names]
    numel = math.prod(shape)
    itemsize = min(v.dtype.itemsize for v in values)
    block = min(options.pointwise_block * (2 if itemsize <= 2 else 1), max(next_power_of_2(numel), 16))
    programs = cdiv(numel, block)
    wide = needs_wide_index([*values, *(fusion.value(n) for n in group.inputs)], programs * block)
    order = memory_order(shape, values[0].strides)  # where dims of extent 1 fall does not matter
    full = numel // block
    if numel % block == 0 or not full:
        lines = _flat_body(
            group, fusion, shape, order, names, block, wide, numel if full < programs else None, reducer
        )
        label = f"{', '.join(names)}: flat index over {list(shape)}, {block} elements per program"
    else:
        # The full blocks without a mask: `offs < numel` at a numel that is no multiple of the vector width
        # keeps Triton from vector accesses (H200, [4093, 5003] bf16 x * sigmoid(y), with the flat index:
        # 47.9 -> 32.1 us).
        lines = (
            f"if prog < {full}:",
            *_indent(_flat_body(group, fusion, shape, order, names, block, wide, None, reducer)),
            "else:",
            *_indent(_flat_body(group, fusion, shape, order, names, block, wide, numel, reducer)),
        )
        label = (
            f"{', '.join(names)}: flat index over {list(shape)}, {block} elements per program, "
            f"the last of {programs} masked"
        )
    warps = 8 if block >= 1024 else max(1, block // 128)
    if warps == 8 and _evaluates_long_math(group):
        warps = options.long_math_warps
    return Part(
        label=label,
        programs=programs,
        lines=lines,
        num_warps=warps,
        wide_index=wide,
        config={"outputs": list(names), "shape": list(shape), "BLOCK": block},
    )


def _flat_body(
    group: Group,
    fusion: Fusion,
    shape: tuple[int, ...],
    order: Sequence[int],
    names: Sequence[str],
    block: int,
    wide: bool,
    masked_at: int | None,
    reducer: Reducer | None,
) -> tuple[str, ...]:
    """The program's block of the flat index in the outputs' memory order (`order`, outermost first), and
    every output written at it; masked to positions below `masked_at` when given. Where no access needs the
    index's digits (every value laid out in that order), each is addressed by the flat index itself, which
    Triton sees as contiguous; else every one by the digits: a kernel mixing the two was slower (H200,
    RoPE [8, 32, 2048, 128] bf16: 136.2 -> 144.9 us). With a `reducer`, whose values are gathered at a
    digit, the accesses in memory order keep the flat index."""
    for by_flat_index in (True,) if reducer else (True, False):
        body = Body()
        body.reserve("prog", "pid")
        offs = body.define("offs", f"prog * {block} + tl.arange(0, {block})", frozenset({"flat"}))
        mask = (
            frozenset()
            if masked_at is None
            else frozenset({body.define("mask", f"offs < {masked_at}", frozenset({"flat"}))})
        )
        dims = ["0"] * len(shape)
        define = body.optional if by_flat_index else body.assign
        for k, text in zip(order, delinearize(offs, [shape[k] for k in order]), strict=True):
            dims[k] = define(text, f"d{k}")
        lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=wide, reducer=reducer)
        if by_flat_index:
            lowering.name_linear(dims, offs, shape, order)
        # a one-element output still stores through a block pointer: its value may be a block
        for name in names:
            lowering.store(name, Index(tuple(dims), mask), spread=offs)
        lines = tuple(body.text())
        digits = {d for d in dims if d not in ("0", offs)}
        if not any(line.split(" = ", 1)[0].strip() in digits for line in lines):
            break
    return lines


def _indent(lines: Sequence[str]) -> list[str]:
    return [f"    {line}" if line else line for line in lines]


def _evaluates_long_math(group: Group) -> bool:
    return any(op_def(expr.op).cost is Cost.LONG_MATH for expr in group.exprs)


def pointwise_parts(group: Group, fusion: Fusion, options: Options) -> list[Part]:
    return [flat_part(group, fusion, *written_over(group, fusion), options)]
