"""The engine's stages for the app, cached by the definition text and view options.

Parsing for diagrams makes the script's inputs on torch's meta device (no memory, nothing runs);
only a Run makes real tensors. The compile (both strategies, one output contract) runs in a worker of
the compile pool, with a time and a memory limit, so that a huge definition holds up no other session;
its outcome, errors too, is cached. Compiled stages are immutable and shared between sessions. Every
stage takes the segment a segments dump is shown at (0 for any other script).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

import hfuse
from hfuse import settings, viz
from hfuse.backends import HFUSE, NAIVE
from hfuse.fusion_diff import diff_fusions
from hfuse.ir import Fusion
from hfuse.linked_view import linked_view_html
from hfuse.loader import Script
from hfuse.segment.model import SchedulerKind
from hfuse.segment_diff import SegmentationDiff, diff_segmentations
from hfuse.service.compile import CompileRequest, CompileResult
from hfuse.service.worker import shared_compile_pool
from hfuse.viz_diff import diff_graph, segmentation_diff_graph
from hfuse.what_if import Candidate

if TYPE_CHECKING:
    from hfuse.pipeline import Compiled

OUTPUT_TITLES = {"views": "views allowed", "contiguous": "contiguous outputs"}


@st.cache_resource(max_entries=64, show_spinner=False)
def script_of(text: str, segment: int = 0) -> Script:
    """The script as the loader reads it, inputs on the meta device; `segment` picks a definition of a
    segments dump (raises the loader's HfuseError for a bad script)."""
    return hfuse.load(text, device="meta", segment=segment)


def fusion_of(text: str, segment: int = 0) -> Fusion:
    """The fusion a script defines (raises the loader's HfuseError for a bad script)."""
    return script_of(text, segment).fusion


@st.cache_resource(max_entries=64, show_spinner=False)
def compile_outcome(text: str, outputs: str, segment: int = 0) -> CompileResult:
    """Both strategies' compiles of the script under one output contract, done in a compile worker, or
    why they failed (raises the loader's HfuseError for a bad script)."""
    request = CompileRequest(fusion_of(text, segment), alias_outputs=outputs == "views")
    return shared_compile_pool().compile(request)


def compiled_of(text: str, strategy: str, outputs: str, segment: int = 0) -> Compiled:
    """The strategy's compile; raises its HfuseError (a LimitError when it ran past its time limit). A
    spinner with the time spent shows while a compile takes longer than half a second."""
    limit = settings.COMPILE_TIMEOUT_S.as_float()
    with st.spinner(f"Compiling both strategies (stopped after {limit:g} s)...", show_time=True):
        return _compiled(text, strategy, outputs, segment)


def _compiled(text: str, strategy: str, outputs: str, segment: int) -> Compiled:
    return compile_outcome(text, outputs, segment).of(strategy)


@st.cache_resource(max_entries=32, show_spinner=False)
def candidate_outcome(candidate: Candidate) -> CompileResult:
    """The compile of a what-if plan with its one strategy, done in a compile worker, or why it failed."""
    request = CompileRequest(
        fusion_of(candidate.text, candidate.segment),
        alias_outputs=candidate.alias_outputs,
        strategies=(candidate.strategy,),
        merge=candidate.merge,
    )
    return shared_compile_pool().compile(request)


def candidate_compiled(candidate: Candidate) -> Compiled:
    """A what-if plan's compile; raises its HfuseError (a MergeError for a merge the segmenter refuses)."""
    with st.spinner("Compiling the what-if plan...", show_time=True):
        return candidate_outcome(candidate).of(candidate.strategy)


WHAT_IF_TITLES = ("current plan", "what-if")


@st.cache_data(max_entries=16, show_spinner=False)
def what_if_dot(current: Candidate, what_if: Candidate) -> str:
    """The current plan's segmentation beside the what-if's."""
    sides = []
    for title, candidate in zip(WHAT_IF_TITLES, (current, what_if), strict=True):
        compiled = candidate_compiled(candidate)
        sides.append(((title, compiled.scheduled, compiled.segmentation), compiled.kernel_count))
    (left, left_count), (right, right_count) = sides
    return viz.compare_graph(left, right, (left_count, right_count)).source


@st.cache_resource(max_entries=16, show_spinner=False)
def what_if_segmentation_diff(current: Candidate, what_if: Candidate) -> SegmentationDiff:
    """The what-if's segments matched with the current plan's (its kernels beside their partners)."""
    before, after = candidate_compiled(current), candidate_compiled(what_if)
    return diff_segmentations(
        (before.scheduled, before.segmentation), (after.scheduled, after.segmentation), WHAT_IF_TITLES
    )


@st.cache_data(max_entries=16, show_spinner=False)
def diff_dot(before_text: str, after_text: str, titles: tuple[str, str], segment: int = 0) -> str:
    """The second definition's IR with what differs from the first's coloured, and a legend."""
    before, after = fusion_of(before_text, segment), fusion_of(after_text, segment)
    return diff_graph(before, after, diff_fusions(before, after), titles).source


@st.cache_resource(max_entries=16, show_spinner=False)
def segmentation_diff(
    before_text: str, after_text: str, outputs: str, titles: tuple[str, str], segment: int = 0
) -> SegmentationDiff:
    """Which of hfuse's segments of the second definition are the same as the first's, changed or added,
    and which of the first's were removed."""
    before, after = (_compiled(text, HFUSE, outputs, segment) for text in (before_text, after_text))
    return diff_segmentations(
        (before.scheduled, before.segmentation), (after.scheduled, after.segmentation), titles
    )


@st.cache_data(max_entries=16, show_spinner=False)
def segmentation_diff_dot(
    before_text: str, after_text: str, outputs: str, titles: tuple[str, str], segment: int = 0
) -> str:
    """Both definitions' hfuse segments side by side, each coloured by what it is in the other."""
    before, after = (_compiled(text, HFUSE, outputs, segment) for text in (before_text, after_text))
    return segmentation_diff_graph(
        (before.scheduled, before.segmentation, before.kernel_count),
        (after.scheduled, after.segmentation, after.kernel_count),
        segmentation_diff(before_text, after_text, outputs, titles, segment),
        titles,
    ).source


@st.cache_data(max_entries=64, show_spinner=False)
def ir_dot(text: str, after_passes: bool, segment: int = 0) -> str:
    names = script_of(text, segment).names
    if not after_passes:
        return viz.ir_graph(fusion_of(text, segment), names=names).source
    compiled = _compiled(text, HFUSE, "views", segment)
    views = viz.alias_views(compiled.scheduled, compiled.segmentation)
    return viz.ir_graph(compiled.scheduled, views=views, names=names).source


@st.cache_data(max_entries=64, show_spinner=False)
def segmentation_dot(
    text: str,
    strategy: str,
    outputs: str,
    segment: int = 0,
    measured: tuple[tuple[int, float, str], ...] = (),
) -> str:
    """The segmentation diagram; `measured` (group id, share, text) shades each segment by a run."""
    compiled = _compiled(text, strategy, outputs, segment)
    overlay = {group: viz.Measured(share, note) for group, share, note in measured} if measured else None
    names = script_of(text, segment).names
    return viz.segmentation_graph(compiled.scheduled, compiled.segmentation, overlay, names).source


@dataclass(frozen=True, slots=True)
class Side:
    """One column of a comparison: its title and the options it compiles with."""

    title: str
    strategy: str
    outputs: str


def comparison_sides(compare: str, strategy: str, outputs: str) -> tuple[Side, Side]:
    if compare == "strategies":
        suffix = f" ({OUTPUT_TITLES[outputs]})"
        return Side(NAIVE + suffix, NAIVE, outputs), Side(HFUSE + suffix, HFUSE, outputs)
    suffix = f"{strategy}, "
    return (
        Side(suffix + OUTPUT_TITLES["views"], strategy, "views"),
        Side(suffix + OUTPUT_TITLES["contiguous"], strategy, "contiguous"),
    )


@st.cache_data(max_entries=64, show_spinner=False)
def comparison_dot(text: str, left: Side, right: Side, segment: int = 0) -> str:
    sides, counts = [], []
    for side in (left, right):
        compiled = _compiled(text, side.strategy, side.outputs, segment)
        sides.append((side.title, compiled.scheduled, compiled.segmentation))
        counts.append(compiled.kernel_count)
    return viz.compare_graph(sides[0], sides[1], (counts[0], counts[1])).source


def kernel_counts(compiled: Compiled) -> dict[str, int]:
    """Segments by scheduler kind, kernels first."""
    counts: dict[str, int] = {}
    for group in compiled.segmentation.groups:
        counts[group.kind.value] = counts.get(group.kind.value, 0) + 1
    order = [kind.value for kind in SchedulerKind]
    return dict(sorted(counts.items(), key=lambda item: order.index(item[0])))


@st.cache_data(max_entries=16, show_spinner=False)
def linked_view_of(text: str, strategy: str, outputs: str, segment: int = 0) -> str | None:
    """The linked view's page (`hfuse.linked_view`), made once per compile: it reads every kernel's
    lines for every value; None where the `dot` binary is missing."""
    svg = svg_of(segmentation_dot(text, strategy, outputs, segment))
    if svg is None:
        return None
    compiled = _compiled(text, strategy, outputs, segment)
    return linked_view_html(svg, compiled, script_of(text, segment).names)


@st.cache_data(max_entries=16, show_spinner=False)
def svg_of(dot_source: str) -> str | None:
    """SVG text where the `dot` binary exists, else None."""
    import graphviz

    if not viz.dot_available():
        return None
    return graphviz.Source(dot_source).pipe(format="svg", encoding="utf-8")
