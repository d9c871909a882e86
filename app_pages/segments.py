"""Segmentation: how the fusion is cut into kernels, two ways side by side, with every boundary's reason,
and what-if plans (two segments merged, or a cut inside one) run beside the current one."""

import streamlit as st

from hfuse import viz
from hfuse.errors import HfuseError
from ui import pipeline, state, views, what_if


def side_column(text: str, segment: int, side: pipeline.Side, key: str) -> None:
    st.subheader(side.title)
    try:
        compiled = pipeline.compiled_of(text, side.strategy, side.outputs, segment)
    except HfuseError as err:
        views.show_error(err, text)
        return
    counts = ", ".join(f"{n} {kind}" for kind, n in pipeline.kernel_counts(compiled).items())
    kernels = compiled.kernel_count
    st.markdown(f"**{kernels} kernel{'s' if kernels != 1 else ''}** launched (segments: {counts})")
    run = state.last_run(text, side.strategy, side.outputs, segment)
    measured = ()
    if run is not None and run.profile is not None:
        parts = viz.measured_segments(run.profile)
        measured = tuple((group, part.share, part.text) for group, part in parts.items())
        what = (
            "kernel time" if run.profile.times_meaningful else "bytes moved (times mean nothing on the CPU)"
        )
        st.caption(
            f"Shaded by your last run: the deeper the orange, the larger the segment's share of the {what}."
        )
    views.diagram(
        lambda: pipeline.segmentation_dot(text, side.strategy, side.outputs, segment, measured),
        f"segmentation_{side.strategy}_{side.outputs}",
        key=key,
    )
    rows = viz.boundary_rows(compiled.scheduled, compiled.segmentation)
    if rows:
        st.markdown("**Why the kernels are split**")
        st.table(
            [
                {
                    "edge": r.label,
                    "tensor": r.tensor,
                    "size": r.size,
                    "from": r.producer,
                    "to": r.consumer,
                    "reason": r.reason,
                }
                for r in rows
            ],
            hide_index=True,
        )
    else:
        st.caption("No tensor crosses between kernels.")
    if compiled.segmentation.refused:
        with st.expander(f"Merges tried and refused ({len(compiled.segmentation.refused)})"):
            st.table(
                [
                    {"first": r.first, "second": r.second, "reason": r.reason}
                    for r in compiled.segmentation.refused
                ],
                hide_index=True,
            )


st.header("Segmentation")
fusion = views.current_fusion()
if fusion is not None:
    text, segment = state.definition(), state.segment()
    controls = st.columns(3)
    compare = state.option_control("compare", controls[0])
    if compare == "strategies":
        state.option_control("outputs", controls[1])
    else:
        state.option_control("strategy", controls[1])
    st.caption(
        "One box per segment, coloured by scheduler: pointwise blue, transpose purple, reduction orange, "
        "normalization red, horizontal (independent kernels over different iteration spaces in one launch, "
        "the grid split among them) yellow, alias grey, torch green. Horizontal fusion puts independent "
        "branches in one launch: over one iteration space they become one kernel of their own kind (the QKV "
        "split's three chains: one pointwise kernel), over different spaces a yellow one. Red tensors cross "
        "between kernels through global memory; hover an edge for its reason."
    )
    left, right = pipeline.comparison_sides(compare, state.option("strategy"), state.option("outputs"))
    columns = st.columns(2, gap="large")
    with columns[0]:
        side_column(text, segment, left, key="left")
    with columns[1]:
        side_column(text, segment, right, key="right")
    try:
        both = pipeline.comparison_dot(text, left, right, segment)
        controls[2].download_button(
            "Both as one .dot",
            both,
            file_name="segmentation_comparison.dot",
            mime="text/vnd.graphviz",
            key="comparison_dot",
            icon=":material/download:",
        )
    except HfuseError:
        pass
    what_if.section(text, segment, (left, right))
