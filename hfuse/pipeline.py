"""The compile pipeline: passes -> segmentation -> one generated Triton module per kernel group.

Every stage is kept in `Compiled` so the app can show it, with the time each stage took. The fusion's
structure is checked against its limits (`hfuse.structure`) before any stage runs. A `Merge` asked for
puts two of the segmenter's segments together, where its verdicts allow it (`hfuse.segment.override`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from hfuse.backends import EAGER, HFUSE, NAIVE
from hfuse.codegen import generate
from hfuse.codegen.column_partials import keeps_rows_on_chip
from hfuse.codegen.model import KernelSource
from hfuse.ir import Fusion
from hfuse.passes import PassResult, run_passes
from hfuse.segment import recompute_crossings, segment
from hfuse.segment.column_sums import join_column_sums
from hfuse.segment.model import Group, SchedulerKind, Segmentation
from hfuse.segment.override import Merge, apply_merge
from hfuse.structure import check_structure

T = TypeVar("T")
Progress = Callable[[str], None]  # told each step of a compile or a run before it starts


@dataclass(frozen=True, slots=True)
class Compiled:
    """A fusion and every stage of its compilation."""

    fusion: Fusion  # as defined
    strategy: str
    alias_outputs: bool
    passes: PassResult | None  # None for the eager plan, which runs the definition as written
    segmentation: Segmentation
    kernels: tuple[KernelSource, ...]  # one per group that launches a kernel, in group order
    stage_ms: dict[str, float] = field(default_factory=dict)  # passes, segment, codegen (wall time)
    kernel_codegen_ms: tuple[float, ...] = ()  # codegen time of each kernel, as `kernels`
    recomputed: Fusion | None = None  # after the passes, with the copies kernels recompute (None: none)
    merge: Merge | None = None  # the merge asked for, applied to the segmenter's plan

    @property
    def scheduled(self) -> Fusion:
        """The fusion the segmentation's groups refer to (after the passes and the recomputed copies)."""
        if self.recomputed is not None:
            return self.recomputed
        return self.passes.fusion if self.passes is not None else self.fusion

    @property
    def kernel_count(self) -> int:
        """CUDA kernels one run launches: one per kernel group, two for a split reduction."""
        return sum(kernel.launches for kernel in self.kernels)

    @property
    def launches(self) -> dict[int, int]:
        """Group id -> the CUDA kernels its module launches, for each group that launches any."""
        return {kernel.group_id: kernel.launches for kernel in self.kernels}

    def kernel_of(self, group: Group) -> KernelSource | None:
        return next((k for k in self.kernels if k.group_id == group.id), None)


def compile_fusion(
    fusion: Fusion,
    *,
    strategy: str = HFUSE,
    alias_outputs: bool = True,
    merge: Merge | None = None,
    progress: Progress | None = None,
) -> Compiled:
    """Compile a fusion to Triton kernels (exported as `hfuse.compile`); `progress` is told each step.
    `merge` names two segments of the segmenter's plan to merge (raises MergeError where it is illegal)."""
    tell = progress or _silent
    check_structure(fusion)
    stage_ms: dict[str, float] = {}
    # The naive strategy stands for fusion compilers without alias analysis: every output gets a kernel.
    aliasing = alias_outputs and strategy != NAIVE
    tell(f"running the passes ({strategy})")
    passed = _timed(stage_ms, "passes", lambda: run_passes(fusion, alias_outputs=aliasing))
    tell(f"segmenting ({strategy})")
    scheduled, segmentation = _timed(stage_ms, "segment", lambda: _segmented(passed, strategy, merge))
    timed_kernels = _timed(
        stage_ms, "codegen", lambda: _generate_kernels(segmentation, scheduled, strategy, tell)
    )
    kernels = tuple(kernel for kernel, _ in timed_kernels)
    codegen_ms = tuple(ms for _, ms in timed_kernels)
    recomputed = scheduled if scheduled is not passed.fusion else None
    return Compiled(
        fusion, strategy, alias_outputs, passed, segmentation, kernels, stage_ms, codegen_ms, recomputed,
        merge,
    )  # fmt: skip


def compile_eager(fusion: Fusion, *, strategy: str = EAGER) -> Compiled:
    """The plan of a backend that runs the whole definition with torch: one TORCH segment, no kernels."""
    group = Group(
        id=0,
        kind=SchedulerKind.TORCH,
        exprs=fusion.exprs,
        inputs=fusion.inputs,
        outputs=tuple(dict.fromkeys(fusion.output_names)),
        note=f"the {strategy} backend runs the whole definition with torch",
    )
    return Compiled(fusion, strategy, False, None, Segmentation(strategy, (group,), ()), ())


def _segmented(passed: PassResult, strategy: str, merge: Merge | None) -> tuple[Fusion, Segmentation]:
    scheduled, segmentation = recompute_crossings(
        passed.fusion, segment(passed.fusion, strategy=strategy, alias=passed.aliases)
    )
    if strategy == HFUSE:
        segmentation = join_column_sums(scheduled, segmentation, lambda g: keeps_rows_on_chip(g, scheduled))
    if merge is not None:
        segmentation = apply_merge(scheduled, segmentation, merge)
    return scheduled, segmentation


def _generate_kernels(
    segmentation: Segmentation, fusion: Fusion, strategy: str, tell: Progress
) -> list[tuple[KernelSource, float]]:
    timed = []
    groups = [group for group in segmentation.groups if group.kind.launches_kernel]
    for index, group in enumerate(groups):
        tell(f"generating kernel {index + 1} of {len(groups)} ({strategy})")
        start = time.perf_counter()
        kernel = generate(group, fusion)
        timed.append((kernel, (time.perf_counter() - start) * 1e3))
    return timed


def _silent(step: str) -> None:
    pass


def _timed(stage_ms: dict[str, float], stage: str, step: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = step()
    stage_ms[stage] = (time.perf_counter() - start) * 1e3
    return result
