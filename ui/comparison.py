"""The IR page's comparison of two definitions, kernel by kernel: hfuse's segments of each matched through
the ops they compute (the same, changed, added or removed), drawn side by side, and both definitions run
through the run service with their figures and each matched kernel's side by side."""

from __future__ import annotations

import streamlit as st

from hfuse.backends import HFUSE
from hfuse.segment.model import Group
from hfuse.segment_diff import op_names
from hfuse.what_if import Candidate
from ui import pipeline, run_pair, state, views

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
        results = run_pair.run_plans(plans, tuple(f"the plan {title}" for title in titles))
        if results is not None:
            st.session_state.setdefault(RUNS, {})[key] = (plans, results)
            st.session_state[state.RUN_REPORT] = ((after_text, HFUSE, outputs, segment), results[1])
    runs = st.session_state.get(RUNS, {}).get(key)
    if runs is not None and runs[0] == plans:
        diff = pipeline.segmentation_diff(before_text, after_text, outputs, titles, segment)
        with st.container(key=f"{key}_runs"):
            run_pair.show_runs(runs[1], diff, titles, key)


def _segment_name(group: Group | None) -> str:
    if group is None:
        return "-"
    return f"kernel {group.id}" if group.kind.launches_kernel else f"segment {group.id} (no kernel)"


def _schedulers(before: Group | None, after: Group | None) -> str:
    kinds = list(dict.fromkeys(group.kind.value for group in (before, after) if group is not None))
    return " -> ".join(kinds)
