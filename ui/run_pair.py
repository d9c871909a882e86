"""Two runs side by side: each plan through the run service, their figures with the change and ratio,
whether each matches torch, and each kernel beside its partner (matched by `hfuse.segment_diff`). The
Segmentation page's what-if and the IR page's comparison of two definitions show their runs so."""

from __future__ import annotations

import streamlit as st

from hfuse.segment_diff import SegmentationDiff
from hfuse.service import worker
from hfuse.service.request import RunResult
from hfuse.what_if import Candidate, compare_kernels, compare_runs
from ui import views
from ui.literal import literal


def run_plans(
    plans: tuple[Candidate, Candidate], names: tuple[str, str]
) -> tuple[RunResult, RunResult] | None:
    """Each plan through the run service, one after the other; a failure is shown, and None returned."""
    results = []
    with st.status(f"Running {names[0]} and {names[1]}...", expanded=True) as progress:
        for name, plan in zip(names, plans, strict=True):
            st.caption(f"Running {name}")
            result = worker.shared_service().run(plan.request())
            if result.failure is not None:
                progress.update(label=f"{name[0].upper()}{name[1:]} failed", state="error")
                views.show_error(result.failure.exception(), plan.text)
                return None
            results.append(result)
        progress.update(label="Both ran", state="complete", expanded=False)
    return results[0], results[1]


def show_runs(
    results: tuple[RunResult, RunResult], diff: SegmentationDiff, titles: tuple[str, str], key: str
) -> None:
    """Both runs' figures, whether each matches torch, and each kernel beside its partner."""
    before, after = results
    figures_table(before, after, titles, key=f"{key}_figures")
    columns = st.columns(2)
    for column, title, result in zip(columns, titles, (before, after), strict=True):
        with column:
            st.markdown(f"**{literal(title[0].upper() + title[1:])}**")
            checks(result)
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


def figures_table(before: RunResult, after: RunResult, titles: tuple[str, str], key: str) -> None:
    """Both runs' figures side by side (`compare_runs`), with their change and ratio."""
    if not (before.profile.times_meaningful and after.profile.times_meaningful):
        st.caption(
            "Run in Triton's interpreter on the CPU: bytes and checks are real, times are not measured."
        )
    st.dataframe(
        [
            {
                "measure": f.measure,
                titles[0]: f.current,
                titles[1]: f.what_if,
                "change": f.change,
                "ratio": f.ratio,
            }
            for f in compare_runs(before, after)
        ],
        hide_index=True,
        key=key,
    )


def checks(result: RunResult) -> None:
    """Whether the run's outputs match torch."""
    bad = [o.name for o in result.outputs if not o.ok]
    if bad:
        st.error(f"{', '.join(bad)} differ from torch.")
    elif len(result.outputs) == 1:
        st.success("The output matches torch.")
    else:
        st.success(f"All {len(result.outputs)} outputs match torch.")
