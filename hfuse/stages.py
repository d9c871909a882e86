"""A compile, step by step, as text: the fusion as defined and after each pass, its segmentation with the
reasons, and each kernel's generated source. Each step says whether it changed what came before and
shows the change as a unified diff, as Compiler Explorer's pipeline view does for compiler passes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from hfuse.pipeline import Compiled
from hfuse.printer import print_fusion
from hfuse.segment.report import format_segmentation


@dataclass(frozen=True, slots=True)
class Stage:
    """One step: its name, its text, and its unified diff against the step it follows ("" when it is the
    first of its kind or changed nothing)."""

    name: str
    text: str
    follows: str | None  # the step the diff is taken against
    diff: str

    @property
    def changed(self) -> bool:
        return self.follows is None or bool(self.diff)


def compile_stages(compiled: Compiled) -> list[Stage]:
    """The steps of a compile in order: the IR through the passes, the segmentation, then the kernels."""
    stages = ir_stages(compiled)
    report = format_segmentation(compiled.scheduled, compiled.segmentation, compiled.launches)
    stages.append(_stage(f"segmentation ({compiled.strategy})", report, None))
    for kernel in compiled.kernels:
        stages.append(_stage(f"kernel {kernel.name}", kernel.source, None))
    return stages


def ir_stages(compiled: Compiled) -> list[Stage]:
    """The IR as defined, after each pass, and with the copies kernels recompute."""
    stages: list[Stage] = []
    if compiled.passes is not None:
        for name, fusion in compiled.passes.stages:
            previous = stages[-1] if stages else None
            stages.append(_stage(name, print_fusion(fusion), previous))
    else:
        stages.append(_stage("as defined", print_fusion(compiled.fusion), None))
    if compiled.recomputed is not None:
        stages.append(_stage("recomputed by readers", print_fusion(compiled.recomputed), stages[-1]))
    return stages


def _stage(name: str, text: str, previous: Stage | None) -> Stage:
    if previous is None:
        return Stage(name, text, None, "")
    lines = difflib.unified_diff(
        previous.text.splitlines(keepends=True),
        text.splitlines(keepends=True),
        fromfile=previous.name,
        tofile=name,
    )
    return Stage(name, text, previous.name, "".join(lines))
