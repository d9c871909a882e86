"""Triton code generation: one module per kernel group, one launch (a split reduction: two or three).

    generate(group, fusion) -> KernelSource

What a kernel computes is the segmenter's plan: the group's iteration space (`Group.space`) and which
of its outputs hold one value per row (`Group.row_outputs`); code generation chooses how to tile and
loop over it. POINTWISE groups get a flat index over the space, TRANSPOSE groups 2-D tiles, REDUCTION
and NORMALIZATION groups rows x reduced columns (in two launches when the rows are few and long, see
`split`); a HORIZONTAL group concatenates the parts of its branches (each with its own plan) into one
grid; a row group joined with the column sums of the same values (a normalization backward) is a row
kernel that also sums columns, then a launch adding its partials (`column_partials`). ALIAS and TORCH
groups have no kernel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from hfuse.codegen.column_partials import column_partials
from hfuse.codegen.kernel import Launch, Part, assemble
from hfuse.codegen.model import KernelSource
from hfuse.codegen.options import Options
from hfuse.codegen.pointwise import pointwise_parts
from hfuse.codegen.reduction import reduction_parts
from hfuse.codegen.split import split_reduction
from hfuse.codegen.transpose import transpose_parts
from hfuse.errors import UnsupportedError
from hfuse.ir import Fusion, Value
from hfuse.segment.model import Group, SchedulerKind

__all__ = ["KernelSource", "Options", "generate"]

_PARTS: dict[SchedulerKind, Callable[[Group, Fusion, Options], list[Part]]] = {
    SchedulerKind.POINTWISE: pointwise_parts,
    SchedulerKind.TRANSPOSE: transpose_parts,
    SchedulerKind.REDUCTION: reduction_parts,
    SchedulerKind.NORMALIZATION: reduction_parts,
}
_SPLITTABLE = (SchedulerKind.REDUCTION, SchedulerKind.NORMALIZATION)  # not inside a horizontal launch


def generate(group: Group, fusion: Fusion, options: Options | None = None) -> KernelSource:
    """The Triton module computing `group`'s outputs from its inputs, in one launch or, for a split
    reduction, two."""
    options = options or Options()
    if not group.kind.launches_kernel:
        raise UnsupportedError(
            f"group {group.id} is a {group.kind.value} group: it launches no kernel, "
            "so it has no Triton source"
        )
    inputs, outputs = _arguments(group, fusion)
    values = fusion.value_map
    args = [values[n] for n in inputs + outputs]
    title = f"{group.name}: {group.kind.value} kernel of group {group.id}" + (
        f" ({group.note})" if group.note else ""
    )
    if group.sums_columns:
        split = column_partials(group, fusion, options, args)
    else:
        split = split_reduction(group, fusion, options, args) if group.kind in _SPLITTABLE else None
    if split is None:
        launch = Launch(group.name, tuple(_parts(group, fusion, options)), inputs + outputs)
        launches = _with_warps((launch,), options)
        source, config = assemble(title, launches, args), {}
    else:
        launches, config = _with_warps(split.launches, options), split.config
        source = assemble(title, launches, args, split.scratch, split.summary)
    parts = [part for launch in launches for part in launch.parts]
    return KernelSource(
        name=group.name,
        group_id=group.id,
        scheduler=group.kind.value,
        source=source,
        inputs=inputs,
        outputs=outputs,
        grid=(launches[0].programs,),
        num_warps=launches[0].num_warps,
        launches=len(launches),
        config={"parts": [{"label": p.label, "programs": p.programs, **p.config} for p in parts], **config},
    )


def _with_warps(launches: tuple[Launch, ...], options: Options) -> tuple[Launch, ...]:
    if not options.warps:
        return launches

    def forced(part: Part) -> Part:
        return dataclasses.replace(part, num_warps=options.warps)

    return tuple(dataclasses.replace(launch, parts=tuple(map(forced, launch.parts))) for launch in launches)


def _parts(group: Group, fusion: Fusion, options: Options) -> list[Part]:
    if group.kind is SchedulerKind.HORIZONTAL:
        if not group.branches:
            raise UnsupportedError(f"horizontal group {group.id} has no branches to generate")
        return [part for branch in group.branches for part in _parts(branch, fusion, options)]
    if group.kind not in _PARTS:
        raise UnsupportedError(f"group {group.id}: no code generator for {group.kind.value} groups")
    return _PARTS[group.kind](group, fusion, options)


def _used_scalars(group: Group, fusion: Fusion) -> list[str]:
    values = fusion.value_map
    exprs = [e for branch in (group.branches or (group,)) for e in branch.exprs] + list(group.exprs)
    produced = {out for e in exprs for out in e.outputs}
    used = [n for e in exprs for n in e.inputs if values[n].is_scalar and n not in produced]
    return [n for n in dict.fromkeys(used) if values[n].const is None]


def _arguments(group: Group, fusion: Fusion) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Launch arguments: tensors and symbolic scalars read, then tensors written (constants are inlined)."""
    values: dict[str, Value] = fusion.value_map
    outputs = tuple(dict.fromkeys(group.outputs))
    listed = [n for n in group.inputs if not (values[n].is_scalar and values[n].const is not None)]
    inputs = [n for n in dict.fromkeys(listed + _used_scalars(group, fusion)) if n not in outputs]
    return tuple(inputs), outputs
