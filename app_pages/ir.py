"""IR: the fusion as defined, and as the passes leave it (aliased outputs marked)."""

import streamlit as st

from hfuse.backends import HFUSE
from hfuse.errors import HfuseError
from hfuse.printer import print_fusion
from ui import pipeline, state, views

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
