"""The Segmentation page's what-if: merge two segments or cut inside one, see the new cut beside the
current one, and run both through the run service to compare kernels, bytes, times and checks."""

from __future__ import annotations

import streamlit as st

from hfuse import viz
from hfuse.errors import HfuseError
from hfuse.pipeline import Compiled
from hfuse.segment import can_fuse, can_share_launch
from hfuse.segment.override import KERNEL, LAUNCH, Merge
from hfuse.what_if import Candidate, cut, cuttable_tensors, merged
from ui import navigation, pipeline, run_pair, state, views
from ui.literal import literal

WHAT_IF = "what_if"  # (current, what-if) Candidates the page shows
WHAT_IF_RUNS = "what_if_runs"  # ((current, what-if), (its RunResult, the what-if's)) of the last runs
CHANGES = ("merge two segments", "cut inside a segment")


def section(text: str, segment: int, sides: tuple[pipeline.Side, pipeline.Side]) -> None:
    st.subheader("What if the fusion were cut differently?")
    columns = st.columns(2)
    chosen = columns[0].selectbox(
        "Plan to change", (0, 1), index=1, key="whatif_side", format_func=lambda i: sides[i].title
    )
    side = sides[chosen]
    change = columns[1].radio("Change", CHANGES, key="whatif_change", horizontal=True)
    current = Candidate(text, side.strategy, side.outputs == "views", segment)
    try:
        compiled = pipeline.compiled_of(text, side.strategy, side.outputs, segment)
    except HfuseError as err:
        views.show_error(err, text)
        return
    if change == CHANGES[0]:
        pick_merge(current, compiled)
    else:
        pick_cut(current, compiled)
    shown = st.session_state.get(WHAT_IF)
    if shown is not None and shown[0] == current:
        show_what_if(*shown)


def pick_merge(current: Candidate, compiled: Compiled) -> None:
    """The segmenter's verdicts on two segments the visitor picks, and buttons to apply a legal merge."""
    groups = {g.id: g for g in compiled.segmentation.groups}
    if len(groups) < 2:
        st.info("This plan is one segment: there is nothing to merge. Cut inside it instead.")
        return
    pick = st.columns(2)
    titles = {g: viz.group_title(group) for g, group in groups.items()}
    first = pick[0].selectbox("Segment", list(groups), key="whatif_first", format_func=titles.get)
    others = [g for g in groups if g != first]
    second = pick[1].selectbox("and segment", others, key="whatif_second", format_func=titles.get)
    a, b = groups[first], groups[second]
    rest = [g for g in groups.values() if g.id not in (a.id, b.id)]
    buttons = st.columns(2)
    for column, how, what, verdict in (
        (buttons[0], KERNEL, "One kernel", can_fuse(a, b, compiled.scheduled, rest)),
        (buttons[1], LAUNCH, "One launch, side by side", can_share_launch(a, b, compiled.scheduled, rest)),
    ):
        answer = f"**{what}: {'yes' if verdict.ok else 'no'}.** {literal(verdict.reason)}"
        (column.success if verdict.ok else column.warning)(answer)
        if column.button(
            f"Try it: {what.lower()}",
            key=f"whatif_apply_{how}",
            disabled=not verdict.ok,
            icon=":material/merge:",
        ):
            st.session_state[WHAT_IF] = (current, merged(current, Merge(a.id, b.id, how)))


def pick_cut(current: Candidate, compiled: Compiled) -> None:
    """A tensor that a kernel computes and reads itself, and a button to make it go through memory."""
    cuttable = cuttable_tensors(compiled)
    if not cuttable:
        st.info("No kernel of this plan reads a tensor it computes: there is nothing to cut.")
        return
    groups = {g.id: g for g in compiled.segmentation.groups}
    names = pipeline.script_of(current.text, current.segment).names
    tensor = st.selectbox(
        "Cut at the tensor",
        list(cuttable),
        key="whatif_tensor",
        format_func=lambda t: (
            f"{t}{f' ({names[t]})' if t in names else ''}, in " + viz.group_title(groups[cuttable[t]])
        ),
    )
    st.caption(
        "The cut writes the definition again with `fd.ops.segment_set(t)` between the tensor and its "
        "readers: nvFuser's hint that a new kernel starts there."
    )
    if st.button("Try it: cut here", key="whatif_apply_cut", icon=":material/content_cut:"):
        script = pipeline.script_of(current.text, current.segment)
        st.session_state[WHAT_IF] = (current, cut(current, script, tensor))


def show_what_if(current: Candidate, what_if: Candidate) -> None:
    st.markdown(f"**What-if:** {literal(what_if.change)}.")
    try:
        before, after = pipeline.candidate_compiled(current), pipeline.candidate_compiled(what_if)
    except HfuseError as err:
        views.show_error(err, what_if.text)
        return
    counts = st.columns(3)
    counts[0].metric("Kernels now", before.kernel_count)
    counts[1].metric(
        "Kernels in the what-if", after.kernel_count, delta=after.kernel_count - before.kernel_count
    )
    counts[2].metric("Segments in the what-if", len(after.segmentation.groups))
    views.diagram(
        lambda: pipeline.what_if_dot(current, what_if), "what_if_segmentation", key="whatif_diagram"
    )
    if what_if.merge is None:
        with st.expander("The what-if definition"):
            st.code(what_if.text, language="python")
            st.button(
                "Open it in the editor",
                key="whatif_open",
                icon=":material/edit:",
                on_click=navigation.open_editor_with,
                args=(what_if.text,),
            )
    if st.button("Run both", key="whatif_run", type="primary", icon=":material/play_arrow:"):
        run_both(current, what_if)
    runs = st.session_state.get(WHAT_IF_RUNS)
    if runs is not None and runs[0] == (current, what_if):
        with st.container(key="whatif_runs"):
            diff = pipeline.what_if_segmentation_diff(current, what_if)
            run_pair.show_runs(runs[1], diff, pipeline.WHAT_IF_TITLES, "whatif")


def run_both(current: Candidate, what_if: Candidate) -> None:
    """Both plans run and kept for this section; the current plan's run also for the Run page."""
    results = run_pair.run_plans((current, what_if), ("the current plan", "the what-if"))
    if results is None:
        return
    st.session_state[WHAT_IF_RUNS] = ((current, what_if), results)
    outputs = "views" if current.alias_outputs else "contiguous"
    st.session_state[state.RUN_REPORT] = (
        (current.text, current.strategy, outputs, current.segment),
        results[0],
    )
