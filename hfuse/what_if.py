"""What-if plans: a fusion's plan beside the same fusion cut differently, each run through the run service.

A what-if changes one thing of the current plan: it merges two of its segments (a `Merge`, which the
compile applies where the segmenter's verdicts allow it), or it cuts inside a segment (the definition
printed again with a `segment_set` before the readers of a tensor). Both are `Candidate`s: what a run
request needs, and the change in words. `compare_runs` sets the two runs' figures side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from hfuse.edit import cut_at
from hfuse.fusion_diff import Status
from hfuse.loader import Script
from hfuse.pipeline import Compiled
from hfuse.printer import print_fusion
from hfuse.runtime.profile_model import FusionProfile, KernelProfile
from hfuse.segment.override import Merge
from hfuse.segment_diff import SegmentationDiff
from hfuse.service.request import RunRequest, RunResult
from hfuse.units import format_bytes, format_ms


@dataclass(frozen=True, slots=True)
class Candidate:
    """A plan to run: the definition text (of a segments dump, which segment), the segmenter, the output
    contract and a merge of two of its segments; `change` says how it differs from the current plan."""

    text: str
    strategy: str
    alias_outputs: bool
    segment: int = 0
    merge: Merge | None = None
    change: str = ""  # empty for the current plan

    def request(self) -> RunRequest:
        return RunRequest(
            self.text,
            backend=self.strategy,
            alias_outputs=self.alias_outputs,
            segment=self.segment,
            merge=self.merge,
        )


def merged(current: Candidate, merge: Merge) -> Candidate:
    """The current plan with two of its segments merged (the compile refuses an illegal merge)."""
    return replace(current, merge=merge, change=f"merge {merge}")


def cut(current: Candidate, script: Script, tensor: str) -> Candidate:
    """The current plan's definition, printed again with every reader of `tensor` reading
    `segment_set(tensor)`: the segmenter must start a new kernel there."""
    made = cut_at(script.fusion, tensor)
    scalars = {
        name: value
        for name, value in zip(made.fusion.inputs, script.inputs, strict=True)
        if not isinstance(value, torch.Tensor)
    }
    change = (
        f"cut at {tensor}: its readers read {made.copy} = segment_set({made.tensor}), so it goes through "
        "global memory (the values are numbered afresh in the printed definition)"
    )
    text = print_fusion(made.fusion, scalar_values=scalars)
    return Candidate(text, current.strategy, current.alias_outputs, change=change)


def cuttable_tensors(compiled: Compiled) -> dict[str, int]:
    """The definition's tensors that a kernel both computes and reads, each with that kernel's segment id:
    where a cut would split a kernel."""
    defined = compiled.fusion.value_map
    found: dict[str, int] = {}
    for group in compiled.segmentation.groups:
        if not group.kind.launches_kernel:
            continue
        produced = {name for e in group.exprs for name in e.outputs}
        for expr in group.exprs:
            for name in expr.inputs:
                if name in produced and name in defined and defined[name].is_tensor:
                    found.setdefault(name, group.id)
    return found


@dataclass(frozen=True, slots=True)
class Figure:
    """One measure of both runs: the current plan's, the what-if's, the change (what-if minus current) and
    the ratio (what-if over current)."""

    measure: str
    current: str
    what_if: str
    change: str
    ratio: str = ""


def compare_runs(current: RunResult, what_if: RunResult) -> list[Figure]:
    """Both runs' kernels, times, bytes and checks against torch, side by side. Times are compared only
    where both were measured (on a GPU)."""
    a, b = current.profile, what_if.profile
    assert a is not None and b is not None, "compare_runs takes two runs that worked"
    figures = [
        Figure(
            "kernels launched",
            str(a.segments),
            str(b.segments),
            _signed(b.segments - a.segments),
            _ratio(a.segments, b.segments),
        ),
        Figure("outputs matching torch", _matching(current), _matching(what_if), ""),
    ]
    for measure, count in (("bytes moved", _moved), ("bytes between kernels", _between)):
        before, after = count(a), count(b)
        figures.append(
            Figure(
                measure,
                format_bytes(before),
                format_bytes(after),
                _bytes_change(after - before),
                _ratio(before, after),
            )
        )
    times = (
        (a.kernel_time_ms, b.kernel_time_ms) if a.times_meaningful and b.times_meaningful else (None, None)
    )
    figures.append(Figure("kernel time", format_ms(times[0]), format_ms(times[1]), *_time_change(*times)))
    bandwidths = (a.effective_bandwidth_gbs, b.effective_bandwidth_gbs)
    timed = all(times) and all(bandwidths)
    figures.append(
        Figure(
            "bandwidth",
            _gbs(bandwidths[0]),
            _gbs(bandwidths[1]),
            f"{bandwidths[1] - bandwidths[0]:+,.1f} GB/s" if timed else "",
            _ratio(*bandwidths) if timed else "",
        )
    )
    return figures


@dataclass(frozen=True, slots=True)
class KernelFigure:
    """A segment of the current run beside its partner in the what-if's (`hfuse.segment_diff`): its status,
    each side's kernel, bytes moved and time ("-" where a side has no partner), and their changes."""

    status: Status
    current: str
    what_if: str
    bytes_current: str
    bytes_what_if: str
    bytes_change: str
    time_current: str
    time_what_if: str
    time_change: str


def compare_kernels(current: RunResult, what_if: RunResult, diff: SegmentationDiff) -> list[KernelFigure]:
    """Each pair of segments that `diff` matched between the plans the two runs ran, and each segment
    only one plan has, in `diff`'s order. A segment one plan lacks counts as no bytes and no time."""
    kernels = [_segments(current), _segments(what_if)]
    timed = current.profile.times_meaningful and what_if.profile.times_meaningful
    figures = []
    for match in diff.matches:
        a = None if match.before is None else kernels[0].get(match.before.id)
        b = None if match.after is None else kernels[1].get(match.after.id)
        moved = [None if k is None else k.input_bytes + k.output_bytes for k in (a, b)]
        times = [None if k is None or not timed else k.time_ms for k in (a, b)]
        figures.append(
            KernelFigure(
                match.status,
                _kernel(a),
                _kernel(b),
                "-" if moved[0] is None else format_bytes(moved[0]),
                "-" if moved[1] is None else format_bytes(moved[1]),
                _bytes_change((moved[1] or 0) - (moved[0] or 0)),
                format_ms(times[0]),
                format_ms(times[1]),
                _time_change(times[0] or 0.0, times[1] or 0.0)[0] if timed else "not measured (no GPU)",
            )
        )
    return figures


def _moved(profile: FusionProfile) -> int:
    return sum(k.input_bytes + k.output_bytes for k in profile.segment_profiles)


def _between(profile: FusionProfile) -> int:
    return max(_moved(profile) - profile.input_bytes - profile.output_bytes, 0)


def _matching(result: RunResult) -> str:
    return f"{sum(o.ok for o in result.outputs)} of {len(result.outputs)}"


def _signed(count: int) -> str:
    return f"{count:+d}" if count else "same"


def _ratio(before: float | None, after: float | None) -> str:
    """after / before where both are positive: a ratio to or from nothing says less than the change."""
    return f"{after / before:.2f}x" if before and after else ""


def _time_change(before: float | None, after: float | None) -> tuple[str, str]:
    """The change of a time and its ratio, where both were measured."""
    if before is None or after is None:
        return "not measured (no GPU)", ""
    change = after - before
    return ("+" if change >= 0 else "-") + format_ms(abs(change)), _ratio(before, after)


def _segments(result: RunResult) -> dict[int, KernelProfile]:
    assert result.profile is not None, "compare_kernels takes two runs that worked"
    return {k.segment_id: k for k in result.profile.segment_profiles}


def _kernel(profile: KernelProfile | None) -> str:
    if profile is None:
        return "-"
    return profile.name if profile.launches_kernel else f"{profile.name} (no kernel)"


def _bytes_change(count: int) -> str:
    if not count:
        return "same"
    return ("+" if count > 0 else "-") + format_bytes(abs(count))


def _gbs(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} GB/s"
