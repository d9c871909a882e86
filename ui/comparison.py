"""The IR page's comparison of two definitions, kernel by kernel: hfuse's segments of each matched through
the ops they compute (the same, changed, added or removed), drawn side by side, and both definitions run
through the run service with their figures and each matched kernel's side by side."""

from __future__ import annotations

import streamlit as st

from hfuse.backends import HFUSE
from hfuse.segment.model import Group
from hfuse.segment_diff import SegmentationDiff, op_names
from hfuse.service.request import RunResult
from hfuse.what_if import Candidate, compare_kernels
from ui import pipeline, state, views, what_if
from ui.literal import literal

RUNS = "comparison_runs"  # key of a comparison -> ((before, after) Candidates, their RunResults) last run


def segmentation_difference(
    before_text: str, after_text: str, segment: int, titles: tuple[str, str], key: str
) -> None:
    """A table of the segments of both definitions, matched, and the two segmentations drawn coloured."""
    outputs = state.option("outputs")
    diff = pipeline.segmentation_diff(before_text, after_text, outputs, titles, segment)
    counts = ", ".join(f"{count} {status}" for status, count in diff.counts.items() if count)
    st.markdown(f"**{HFUSE}'s segments, {titles[1]} against {titles[0]}:** {counts}.")
    st.caption(
        f"Outputs {pipeline.OUTPUT_TITLES[outputs]}. A segment matches the segment of the other definition "
        "that computes most of the same ops; it is the same when it computes them unchanged, with the same "
        "scheduler, reading and writing the same tensors."
    )
    st.dataframe(
        [
            {
                f"segment {titles[0]}": _segment_name(match.before),
                f"segment {titles[1]}": _segment_name(match.after),
                "status": match.status,
                "scheduler": _schedulers(match.before, match.after),
                "what differs": match.note,
                "ops": op_names(match.after or match.before),
            }
            for match in diff.matches
        ],
        hide_index=True,
        key=f"{key}_segments",
    )
    views.diagram(
        lambda: pipeline.segmentation_diff_dot(before_text, after_text, outputs, titles, segment),
        f"{key}_segmentation_diff",
        key=f"{key}_segmentation_diff",
    )


def run_both(before_text: str, after_text: str, segment: int, titles: tuple[str, str], key: str) -> None:
    """A button that runs both definitions with hfuse, and the last runs' figures side by side."""
    outputs = state.option("outputs")
    plans = tuple(Candidate(text, HFUSE, outputs == "views", segment) for text in (before_text, after_text))
    if st.button("Run both", key=f"{key}_run", type="primary", icon=":material/play_arrow:"):
        results = what_if.run_plans(plans, tuple(f"the plan {title}" for title in titles))
        if results is not None:
            st.session_state.setdefault(RUNS, {})[key] = (plans, results)
            st.session_state[state.RUN_REPORT] = ((after_text, HFUSE, outputs, segment), results[1])
    runs = st.session_state.get(RUNS, {}).get(key)
    if runs is not None and runs[0] == plans:
        diff = pipeline.segmentation_diff(before_text, after_text, outputs, titles, segment)
        with st.container(key=f"{key}_runs"):
            show_runs(runs[1], diff, titles, key)


def show_runs(
    results: tuple[RunResult, RunResult], diff: SegmentationDiff, titles: tuple[str, str], key: str
) -> None:
    """Both runs' figures, whether each matches torch, and each kernel beside its partner."""
    before, after = results
    what_if.figures_table(before, after, titles, key=f"{key}_figures")
    columns = st.columns(2)
    for column, title, result in zip(columns, titles, (before, after), strict=True):
        with column:
            st.markdown(f"**The plan {literal(title)}**")
            what_if.checks(result)
    timed = before.profile.times_meaningful and after.profile.times_meaningful
    rows = []
    for f in compare_kernels(before, after, diff):
        row = {
            "status": f.status,
            f"kernel {titles[0]}": f.current,
            f"kernel {titles[1]}": f.what_if,
            f"bytes {titles[0]}": f.bytes_current,
            f"bytes {titles[1]}": f.bytes_what_if,
            "bytes change": f.bytes_change,
        }
        if timed:
            row |= {f"time {titles[0]}": f.time_current, f"time {titles[1]}": f.time_what_if}
        rows.append(row | {"time change": f.time_change})
    st.dataframe(rows, hide_index=True, key=f"{key}_kernel_figures")


def _segment_name(group: Group | None) -> str:
    if group is None:
        return "-"
    return f"kernel {group.id}" if group.kind.launches_kernel else f"segment {group.id} (no kernel)"


def _schedulers(before: Group | None, after: Group | None) -> str:
    kinds = list(dict.fromkeys(group.kind.value for group in (before, after) if group is not None))
    return " -> ".join(kinds)
