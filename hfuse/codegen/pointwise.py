"""Pointwise kernels: a flat 1-D index over each output shape, in the outputs' memory order.

Outputs of one shape are computed by the same program (one index, shared loads). Outputs of
different shapes get their own part of the grid (see kernel.py), each with its own flat index.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from hfuse.codegen.code import Body
from hfuse.codegen.indexing import delinearize
from hfuse.codegen.kernel import Part, cdiv, needs_wide_index, next_power_of_2
from hfuse.codegen.lower import Index, Lowering
from hfuse.codegen.options import Options
from hfuse.errors import UnsupportedError
from hfuse.ir import Fusion
from hfuse.layout import memory_order
from hfuse.ops import Cost, op_def
from hfuse.segment.model import Group


def output_spaces(group: Group, fusion: Fusion) -> list[tuple[tuple[int, ...], list[str]]]:
    """The group's outputs grouped by shape, in first-appearance order."""
    spaces: dict[tuple[int, ...], list[str]] = {}
    for name in group.outputs:
        value = fusion.value(name)
        if not value.is_tensor:
            raise UnsupportedError(f"group {group.id} writes the scalar {name}; kernels write tensors only")
        spaces.setdefault(value.shape, []).append(name)
    if not spaces:
        raise UnsupportedError(f"group {group.id} has no outputs to compute")
    return list(spaces.items())


def flat_part(
    group: Group, fusion: Fusion, shape: tuple[int, ...], names: Sequence[str], options: Options
) -> Part:
    values = [fusion.value(n) for n in names]
    numel = math.prod(shape)
    itemsize = min(v.dtype.itemsize for v in values)
    block = min(options.pointwise_block * (2 if itemsize <= 2 else 1), max(next_power_of_2(numel), 16))
    programs = cdiv(numel, block)
    wide = needs_wide_index([*values, *(fusion.value(n) for n in group.inputs)], programs * block)

    body = Body()
    body.reserve("prog", "pid")
    offs = body.define("offs", f"prog * {block} + tl.arange(0, {block})", frozenset({"flat"}))
    mask = (
        frozenset({body.define("mask", f"offs < {numel}", frozenset({"flat"}))})
        if numel % block
        else frozenset()
    )
    order = memory_order(shape, values[0].strides)  # where dims of extent 1 fall does not matter
    dims = ["0"] * len(shape)
    for k, text in zip(order, delinearize(offs, [shape[k] for k in order]), strict=True):
        dims[k] = body.assign(text, f"d{k}")
    lowering = Lowering(fusion, group.exprs, group.inputs, body, wide_index=wide)
    for name in names:
        lowering.store(name, Index(tuple(dims), mask))
    warps = 8 if block >= 1024 else max(1, block // 128)
    if warps == 8 and _evaluates_long_math(group):
        warps = 4  # twice the elements per thread: more loads in flight while the math runs
    return Part(
        label=f"{', '.join(names)}: flat index over {list(shape)}, {block} elements per program",
        programs=programs,
        lines=tuple(body.text()),
        num_warps=warps,
        wide_index=wide,
        config={"outputs": list(names), "shape": list(shape), "BLOCK": block},
    )


def _evaluates_long_math(group: Group) -> bool:
    return any(op_def(expr.op).cost is Cost.LONG_MATH for expr in group.exprs)


def pointwise_parts(group: Group, fusion: Fusion, options: Options) -> list[Part]:
    return [flat_part(group, fusion, shape, names, options) for shape, names in output_spaces(group, fusion)]
