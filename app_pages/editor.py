"""Editor: write, paste, load or build a fusion definition; its diagram updates beside it."""

import streamlit as st
from code_editor import code_editor

from hfuse.backends import HFUSE, NAIVE
from hfuse.errors import HfuseError
from hfuse.examples import list_examples
from ui import builder_panel, editor_look, pipeline, state, views

SEGMENT_CHOICE = "segment_choice"
MARKS = "editor_look"  # (editor version, props) of the error marks the code editor shows
APPLY_BUTTON = {
    "name": "Apply (Ctrl+Enter)",
    "feather": "Play",
    "primary": True,
    "hasText": True,
    "showWithIcon": True,
    # saveState first: the editor's own copy of the text must be the one sent, or the error marks drawn
    # after the run redraw the editor with the text of its last typing pause.
    "commands": ["saveState", "submit"],
    "bindKey": {"win": "Ctrl-Enter", "mac": "Command-Enter"},
    "style": {"bottom": "0.1rem", "right": "0.4rem"},
}


@st.cache_data(show_spinner=False)
def examples() -> dict[str, tuple[str, str, str]]:
    return {e.name: (e.title, e.description, e.text) for e in list_examples()}


def gallery() -> None:
    gallery = examples()
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    name = left.selectbox(
        "Examples",
        list(gallery),
        index=None,
        key="example_choice",
        placeholder="Pick an example fusion...",
        format_func=lambda n: f"{gallery[n][0]}: {gallery[n][1]}",
    )
    if right.button("Load", key="load_example", disabled=name is None, width="stretch"):
        state.replace_definition(gallery[name][2])
        st.rerun()
    if state.previous_definition() is not None:
        st.button(
            "Restore the previous text",
            key="restore_previous",
            on_click=state.restore_previous,
            icon=":material/undo:",
            type="tertiary",
        )


def error_marks() -> dict[str, list]:
    """The marks of the definition's error for the code editor. While the visitor types they stay as they
    were: new props redraw the editor with the text it last sent, dropping keys typed since."""
    saved = st.session_state.get(MARKS)
    if state.editor_typing() and saved is not None and saved[0] == state.editor_version():
        return saved[1]
    text = state.definition()
    checked = text.strip() and builder_panel.unfinished() is None
    err = views.definition_error(text, state.segment(), state.option("outputs")) if checked else None
    marks = editor_look.error_marks(err, text)
    st.session_state[MARKS] = (state.editor_version(), marks)
    return marks


def editor() -> None:
    plain = st.toggle(
        "Plain text editor",
        key="plain_editor",
        persist_state="session",
        help="A plain text box instead of the code editor (no highlighting)",
    )
    if plain:
        key = state.plain_editor_key()
        st.text_area(
            "Fusion definition",
            value=state.definition(),
            key=key,
            height=480,
            on_change=lambda: state.set_definition(st.session_state[key]),
            placeholder="with FusionDefinition() as fd: ...",
        )
        st.caption("Click outside the box or press Ctrl+Enter to apply.")
        return
    code_editor(
        state.definition(),
        lang="python",
        height=[20, 30],
        key=state.code_editor_key(),
        response_mode=["debounce", "blur"],
        buttons=[APPLY_BUTTON],
        options={
            "showLineNumbers": True,
            "wrap": True,  # the column is narrow: long lines wrap instead of hiding past the edge
            "tabSize": 4,
            "useSoftTabs": True,
            "enableLiveAutocompletion": False,
            "enableBasicAutocompletion": False,
            "enableSnippets": False,
        },
        props={
            "debounceChangePeriod": 700,
            "fontSize": 13,
            "placeholder": "with FusionDefinition() as fd: ...",
            "scrollMargin": [editor_look.SCROLL_MARGIN_PX, editor_look.SCROLL_MARGIN_PX, 0, 0],
            **error_marks(),
        },
        component_props={"globalCSS": editor_look.EDITOR_CSS},
    )
    st.caption(
        "Applies as you type, on Ctrl+Enter and when you click elsewhere; an error's line is marked in the "
        "editor on Ctrl+Enter and when you click elsewhere."
    )


def script_facts() -> None:
    """Under the editor: what the text was recognised as, the segment shown of a segments dump, and
    what the script printed while it was read."""
    text = state.definition()
    if not text.strip():
        return
    try:
        script = pipeline.script_of(text, state.segment())
    except HfuseError:
        return  # the error is shown beside the editor
    if len(script.segments) > 1:
        st.session_state[SEGMENT_CHOICE] = script.segment
        st.selectbox(
            "Segment",
            range(len(script.segments)),
            format_func=lambda index: script.segments[index],
            key=SEGMENT_CHOICE,
            on_change=lambda: state.choose_segment(st.session_state[SEGMENT_CHOICE]),
            help="The definition every page shows, of the several the text holds",
        )
    st.caption(f"Read as: {script.format}")
    if script.note:
        st.caption(f"Note: {script.note}")
    if script.printed:
        st.caption("The script printed:")
        st.code(script.printed, language=None)


def status() -> bool:
    """Whether the definition compiles; shown next to the editor, with the line and caret of any error."""
    building = builder_panel.unfinished()
    if building is not None:
        st.info(
            f"Being built: {len(building.inputs)} inputs, {len(building.exprs)} ops, no outputs yet. Add an "
            "op in the builder (its results become outputs), or mark a tensor as an output."
        )
        return False
    fusion = views.current_fusion()
    if fusion is None:
        return False
    text, segment, outputs = state.definition(), state.segment(), state.option("outputs")
    counts = f"{len(fusion.inputs)} inputs, {len(fusion.exprs)} ops, {len(fusion.outputs)} outputs"
    try:
        kernels = {s: pipeline.compiled_of(text, s, outputs, segment).kernel_count for s in (NAIVE, HFUSE)}
    except HfuseError as err:
        st.success(f"Parsed: {counts}.")
        views.show_error(err, text)
        return False
    st.success(f"Parsed: {counts}. Kernels: {', '.join(f'{s} {n}' for s, n in kernels.items())}.")
    st.caption(
        f"Kernels one call launches: {NAIVE} gives each op its own kernel, {HFUSE} fuses what it can "
        "(0 when every output can stay a view of an input). The diagram shows the cut; the IR, "
        "Segmentation, Code and Run pages show the rest of this definition."
    )
    return True


def preview() -> None:
    text, segment = state.definition(), state.segment()
    if state.option_control("diagram") == "ir":
        views.diagram(
            lambda: pipeline.ir_dot(text, after_passes=False, segment=segment), "fusion_ir", key="editor_ir"
        )
        return
    strategy, outputs = state.option("strategy"), state.option("outputs")
    kernels = pipeline.compiled_of(text, strategy, outputs, segment).kernel_count
    plural = "s" if kernels != 1 else ""
    st.caption(f"{strategy}, outputs {pipeline.OUTPUT_TITLES[outputs]}: {kernels} kernel{plural}")
    views.diagram(
        lambda: pipeline.segmentation_dot(text, strategy, outputs, segment),
        f"segmentation_{strategy}",
        key="editor_segmentation",
    )


st.header("Fusion definition")
edit_column, diagram_column = st.columns([5, 4], gap="large")
with edit_column:
    gallery()
    editor()
    script_facts()
    # a key keeps it open while its steps replace the text and add elements above it
    with st.expander("Build op by op", key="builder_open", on_change="rerun") as builder:
        if builder.open:
            builder_panel.render()
with diagram_column:
    if status():
        preview()
