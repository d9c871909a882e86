"""A segmentation as plain text: the kernels, what each computes, and why they were cut apart."""

from __future__ import annotations

from collections.abc import Mapping

from hfuse.ir import Fusion
from hfuse.segment.model import Group, SchedulerKind, Segmentation
from hfuse.units import format_bytes


def _values(fusion: Fusion, names: tuple[str, ...]) -> str:
    return ", ".join(fusion.value(n).describe() for n in names) or "-"


def _group_lines(fusion: Fusion, group: Group, indent: str, launches: Mapping[int, int]) -> list[str]:
    launch = "no kernel" if not group.kind.launches_kernel else group.name
    if launches.get(group.id, 1) > 1:
        why = "rows with column partials, then the columns" if group.sums_columns else "a split reduction"
        launch += f", {launches[group.id]} launches: {why}"
    lines = [f"{indent}segment {group.id}: {group.kind.value} ({launch})"]
    if group.note:
        lines.append(f"{indent}  why: {group.note}")
    if group.space is not None:
        lines.append(f"{indent}  iterates: {group.space}")
    lines.append(f"{indent}  reads:  {_values(fusion, group.inputs)}")
    lines.append(f"{indent}  writes: {_values(fusion, group.outputs)}")
    for branch in group.branches:
        lines.extend(_group_lines(fusion, branch, indent + "    ", launches))
    if not group.branches:
        lines.extend(f"{indent}    {expr}" for expr in group.exprs)
    return lines


def format_segmentation(
    fusion: Fusion, segmentation: Segmentation, launches: Mapping[int, int] | None = None
) -> str:
    """`fusion` is the fusion the groups refer to (after the passes); `launches` the CUDA kernels each
    group's code launches where not one (`Compiled.launches`)."""
    launches = launches or {}
    kernels = sum(launches.get(g.id, 1) for g in segmentation.groups if g.kind.launches_kernel)
    kinds = [g.kind.value for g in segmentation.groups]
    lines = [
        f"strategy {segmentation.strategy}: {kernels} kernel launch(es), "
        f"{len(segmentation.groups)} segment(s) ({', '.join(kinds)})"
    ]
    for group in segmentation.groups:
        lines.extend(_group_lines(fusion, group, "", launches))
    for alias in segmentation.aliases:
        lines.append(
            f"view: {alias.output} = {alias.input}.as_strided({list(alias.shape)}, {list(alias.strides)}, "
            f"storage_offset={alias.offset})"
        )
    if segmentation.boundaries:
        lines.append("tensors that cross kernels (through global memory):")
    for b in segmentation.boundaries:
        value = fusion.value(b.tensor)
        size = format_bytes(value.nbytes) if value.is_tensor else "scalar"
        lines.append(f"  {value.describe()} ({size}): segment {b.producer} -> {b.consumer}: {b.reason}")
    if segmentation.recomputed:
        lines.append("tensors recomputed by the kernel that reads them (neither written nor read back):")
    for r in segmentation.recomputed:
        value = fusion.value(r.copy)
        lines.append(
            f"  {value.describe()} ({format_bytes(value.nbytes)}): segment {r.consumer} computes {r.tensor} "
            f"again from {', '.join(r.leaves)}"
        )
    if segmentation.refused:
        lines.append("merges refused:")
    lines.extend(f"  segments {r.first} + {r.second}: {r.reason}" for r in segmentation.refused)
    if not any(g.kind is SchedulerKind.TORCH or g.kind.launches_kernel for g in segmentation.groups):
        lines.append("every output is a view of an input: nothing runs on the device")
    return "\n".join(lines)
