"""IR: the fusion as defined, and as the passes leave it (aliased outputs marked); the compile step by step
with each step's change."""

import difflib
import urllib.parse

import streamlit as st

from hfuse import share
from hfuse.backends import HFUSE, STRATEGIES
from hfuse.errors import HfuseError
from hfuse.printer import print_fusion
from hfuse.stages import compile_stages
from ui import comparison, pipeline, state, views
from ui.literal import literal


def against_original(text: str, segment: int) -> None:
    """What the visitor's edits changed: the IR's diff and each strategy's kernels, before and now."""
    original = state.original_definition()
    if original != text:
        st.subheader("Your edits")
        compare(original, text, segment, ("before your edits", "now"), "edits")


def against_another(text: str, segment: int) -> None:
    """This definition beside one the visitor pastes (a script, or a link to one): the same comparison.
    The page's link carries what was pasted, so the comparison opens as shared."""
    with st.expander("Compare with another definition", expanded=bool(state.compared_text())):
        other = st.text_area(
            "Another definition",
            key=state.COMPARED,
            height=160,
            placeholder="Paste a fusion definition, or a link to one",
            help="The link of this page (the sidebar's Share) carries it, so whoever opens the link sees "
            "this comparison",
        )
        if other.strip():
            try:
                other_text = _definition_of(other.strip())
            except HfuseError as err:
                st.error(f"That link cannot be opened: {literal(err.reason)}")
                return
            compare(other_text, text, segment, ("in the other definition", "in this one"), "other")


def _definition_of(pasted: str) -> str:
    """A pasted link's definition (its f= or s=), or the pasted text itself."""
    query = urllib.parse.urlsplit(pasted).query if pasted.startswith(("http://", "https://")) else ""
    if not query:
        return pasted
    params = {key: values[-1] for key, values in urllib.parse.parse_qs(query).items()}
    found = share.read_link(params, share.default_store())
    if found is None:
        raise HfuseError("the link holds no definition (no f= or s=)")
    return found.text


def compare(before_text: str, after_text: str, segment: int, titles: tuple[str, str], key: str) -> None:
    """The IR's diff, each strategy's kernel count and the kernels' source diff of two definitions; hfuse's
    segments of both matched, and a button to run both."""
    before_title, after_title = titles
    outputs = state.option("outputs")
    try:
        before = print_fusion(pipeline.fusion_of(before_text, segment))
        compiled = {
            (which, strategy): pipeline.compiled_of(source, strategy, outputs, segment)
            for which, source in ((before_title, before_text), (after_title, after_text))
            for strategy in STRATEGIES
        }
    except HfuseError as err:
        st.caption(f"Nothing to compare: one of the two texts does not compile ({literal(err.reason)}).")
        return
    counts = [
        {
            "segmenter": strategy,
            f"kernels {before_title}": compiled[before_title, strategy].kernel_count,
            f"kernels {after_title}": compiled[after_title, strategy].kernel_count,
        }
        for strategy in STRATEGIES
    ]
    st.caption(
        f"Outputs {pipeline.OUTPUT_TITLES[outputs]}. The IR as defined, {before_title} and {after_title}:"
    )
    st.dataframe(counts, hide_index=True, key=f"{key}_kernels")
    after = print_fusion(pipeline.fusion_of(after_text, segment))
    ir_diff = _diff(before, after, before_title, after_title)
    if ir_diff:
        views.diagram(
            lambda: pipeline.diff_dot(before_text, after_text, titles, segment), f"{key}_diff", f"{key}_diff"
        )
        st.code(ir_diff, language="diff")
    else:
        st.caption("The IR is the same: the texts differ only in what does not reach the fusion.")
    sources = {
        which: "\n\n".join(kernel.source for kernel in compiled[which, HFUSE].kernels)
        for which in (before_title, after_title)
    }
    source_diff = _diff(sources[before_title], sources[after_title], before_title, after_title)
    with st.expander(f"The {HFUSE} kernels' source, {before_title} against {after_title}"):
        if source_diff:
            st.code(source_diff, language="diff")
        else:
            st.caption("The kernels are the same.")
    comparison.segmentation_difference(before_text, after_text, segment, titles, key)
    comparison.run_both(before_text, after_text, segment, titles, key)


def _diff(before: str, after: str, before_title: str, after_title: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=before_title,
        tofile=after_title,
    )
    return "".join(lines)


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
    if state.compared_text():
        st.info(
            "This page compares the definition with another one: see **Compare with another definition** "
            "below the diagrams.",
            icon=":material/compare_arrows:",
        )
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
    against_another(text, segment)
    pass_pipeline(text, segment)
