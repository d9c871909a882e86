"""IR: the fusion as defined, and as the passes leave it (aliased outputs marked); the compile step by step
with each step's change."""

import difflib

import streamlit as st

from hfuse.backends import HFUSE, STRATEGIES
from hfuse.errors import HfuseError
from hfuse.printer import print_fusion
from hfuse.stages import compile_stages
from ui import pipeline, state, views
from ui.literal import literal


def against_original(text: str, segment: int) -> None:
    """What the visitor's edits changed: the IR's diff and each strategy's kernels, before and now."""
    original = state.original_definition()
    if original == text:
        return
    st.subheader("Your edits")
    outputs = state.option("outputs")
    try:
        before = print_fusion(pipeline.fusion_of(original, segment))
        counts = [
            {
                "segmenter": strategy,
                "kernels before your edits": pipeline.compiled_of(
                    original, strategy, outputs, segment
                ).kernel_count,
                "kernels now": pipeline.compiled_of(text, strategy, outputs, segment).kernel_count,
            }
            for strategy in STRATEGIES
        ]
    except HfuseError as err:
        st.caption(f"Nothing to compare: one of the two texts does not compile ({literal(err.reason)}).")
        return
    st.caption(f"Outputs {pipeline.OUTPUT_TITLES[outputs]}. The IR as defined, before your edits and now:")
    st.dataframe(counts, hide_index=True, key="edits_kernels")
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        print_fusion(pipeline.fusion_of(text, segment)).splitlines(keepends=True),
        fromfile="before your edits",
        tofile="now",
    )
    diff = "".join(lines)
    if diff:
        st.code(diff, language="diff")
    else:
        st.caption("The IR is the same: the edits changed only what does not reach the fusion.")


def pass_pipeline(text: str, segment: int) -> None:
    """Every step of the compile under the page's options, its text and its change from the step before."""
    strategy, outputs = state.option("strategy"), state.option("outputs")
    st.subheader("Pass pipeline")
    st.caption(
        f"{strategy}, outputs {pipeline.OUTPUT_TITLES[outputs]}: the IR through each pass, the cut into "
        "kernels and each kernel's source. A pass that changed nothing is marked so."
    )
    try:
        stages = compile_stages(pipeline.compiled_of(text, strategy, outputs, segment))
    except HfuseError as err:
        views.show_error(err, text)
        return
    steps, shown = st.columns([1, 3], gap="medium")
    index = steps.radio(
        "Step",
        range(len(stages)),
        format_func=lambda i: f"{i + 1}. {stages[i].name}" + ("" if stages[i].changed else " (no change)"),
        key="pipeline_step",
    )
    stage = stages[min(index, len(stages) - 1)]
    text_tab, diff_tab = shown.tabs(["Text", f"Change from {stage.follows}" if stage.follows else "Change"])
    text_tab.code(stage.text, language="python", line_numbers=True)
    if stage.follows is None:
        diff_tab.caption("The first step of its kind: nothing to compare with.")
    elif not stage.diff:
        diff_tab.caption(f"No change from {stage.follows}.")
    else:
        diff_tab.code(stage.diff, language="diff")


st.header("Fusion IR")
fusion = views.current_fusion()
if fusion is not None:
    text, segment = state.definition(), state.segment()
    defined, normalized = st.columns(2, gap="large")
    with defined:
        st.subheader("As defined")
        st.caption(
            f"{len(fusion.inputs)} inputs, {len(fusion.exprs)} ops, {len(fusion.outputs)} outputs. "
            "Outputs drawn with a double border; constants are folded into their ops."
        )
        views.diagram(
            lambda: pipeline.ir_dot(text, after_passes=False, segment=segment), "fusion_ir", key="ir_defined"
        )
    with normalized:
        st.subheader("After the passes")
        try:
            compiled = pipeline.compiled_of(text, HFUSE, "views", segment)
            st.caption(
                f"{len(compiled.scheduled.exprs)} ops after canonicalization, alias analysis and "
                "dead code removal. Outputs that stay views of an input are dashed."
            )
            views.diagram(
                lambda: pipeline.ir_dot(text, after_passes=True, segment=segment),
                "fusion_ir_after_passes",
                key="ir_passes",
            )
        except HfuseError as err:
            views.show_error(err, text)
    with st.expander("The IR as text"):
        st.code(print_fusion(fusion), language="python")
    against_original(text, segment)
    pass_pipeline(text, segment)
