"""The op builder: add an input, an op or an output; the definition text is printed from the result."""

from __future__ import annotations

import streamlit as st

from hfuse import edit
from hfuse.dtypes import DataType
from hfuse.errors import HfuseError
from hfuse.ir import Fusion
from hfuse.printer import print_fusion
from ui import pipeline, state
from ui.literal import literal

TENSOR_DTYPES = [d.name for d in DataType if d not in (DataType.Index, DataType.Null)]
FORMS = {form.op.frontend_name: form for form in edit.op_forms()}


LAST_BUILT = "builder_last"  # (text, fusion, the tensor its step made) the builder printed last


def _base_fusion() -> Fusion | None:
    """The fusion of the text on screen; the builder's own last fusion while the text is what it printed
    (a definition with inputs but no outputs yet does not parse)."""
    text = state.definition()
    if not text.strip():
        return edit.empty_fusion()
    last = st.session_state.get(LAST_BUILT)
    if last is not None and last[0] == text:
        return last[1]
    try:
        return pipeline.fusion_of(text, state.segment())
    except HfuseError:
        return None


def unfinished() -> Fusion | None:
    """The builder's fusion while the text on screen is the one it printed and it has no outputs yet: a
    definition being built, not a wrong one."""
    last = st.session_state.get(LAST_BUILT)
    if last is None or last[0] != state.definition() or last[1].outputs:
        return None
    return last[1]


def _newest(names: list[str]) -> str:
    """The tensor the builder's last step made while the text is the one it printed (printing renumbers
    the values), else the last one defined."""
    last = st.session_state.get(LAST_BUILT)
    return last[2] if last is not None and last[0] == state.definition() else names[-1]


def _apply(fusion: Fusion, made: str) -> None:
    """Print `fusion` into the editor; `made` is the tensor the step added (or marked)."""
    text = print_fusion(fusion)
    st.session_state[LAST_BUILT] = (text, fusion, made)
    state.replace_definition(text)


def _add_input(fusion: Fusion) -> None:
    with st.form("builder_input", border=False):
        left, right = st.columns([3, 2])
        shape_text = left.text_input("Shape", value="16, 128", key="builder_input_shape")
        dtype = right.selectbox(
            "Dtype", TENSOR_DTYPES, index=TENSOR_DTYPES.index("Float"), key="builder_input_dtype"
        )
        if st.form_submit_button("Add input tensor"):
            try:
                shape = edit.parse_param(edit.Param("shape", "ints"), shape_text)
                built = edit.add_input(fusion, shape, DataType[dtype])
                _apply(built, built.inputs[-1])
            except HfuseError as err:
                st.error(literal(str(err)))
                return
            st.rerun()


def _add_op(fusion: Fusion) -> None:
    names = edit.tensor_names(fusion)
    if not names:
        st.caption("Add an input tensor first.")
        return
    newest = _newest(names)
    version = state.editor_version()  # each step puts a new text: the operands default afresh
    op_name = st.selectbox("Op", list(FORMS), index=list(FORMS).index("add"), key="builder_op")
    form = FORMS[op_name]
    variadic = form.operands[-1:] == ("...",)
    with st.form(f"builder_op_{op_name}", border=False):
        if variadic:
            picked = st.multiselect(
                form.operands[0],
                names,
                default=[newest],
                key=f"builder_{op_name}_operands_{version}",
            )
            operands = list(picked)
        else:
            columns = st.columns(len(form.operands))
            operands = [
                column.text_input(
                    label,
                    value=newest,
                    key=f"builder_{op_name}_{label}_{version}",
                    help="a value name, or a number for a constant (the newest tensor to begin with)",
                )
                for column, label in zip(columns, form.operands, strict=True)
            ]
        columns = st.columns(max(len(form.params), 1))
        raw = {
            p.name: column.text_input(
                f"{p.name} ({p.kind})", value=p.default, key=f"builder_{op_name}_{p.name}"
            )
            for column, p in zip(columns, form.params, strict=False)
        }
        if st.form_submit_button(f"Add {op_name}"):
            try:
                attrs = {p.name: edit.parse_param(p, raw[p.name]) for p in form.params if raw[p.name].strip()}
                built = edit.add_op(fusion, form.op, operands, attrs)
                _apply(built, built.exprs[-1].outputs[0])
            except HfuseError as err:
                st.error(literal(str(err)))
                return
            st.rerun()


def _add_output(fusion: Fusion) -> None:
    names = [n for n in edit.tensor_names(fusion) if n not in fusion.output_names]
    if not names:
        return
    with st.form("builder_output", border=False):
        name = st.selectbox("Mark as output", names, index=len(names) - 1, key="builder_output_name")
        if st.form_submit_button("Add output"):
            try:
                _apply(edit.add_output(fusion, name), name)
            except HfuseError as err:
                st.error(literal(str(err)))
                return
            st.rerun()


def render() -> None:
    fusion = _base_fusion()
    if fusion is None:
        st.info("Fix the definition first: the builder adds to the fusion it defines.")
        return
    st.caption(
        "Each step rewrites the definition from the fusion (comments and formatting are not kept; "
        "'Restore the previous text' undoes a step). An op's results become outputs."
    )
    _add_input(fusion)
    st.divider()
    _add_op(fusion)
    st.divider()
    _add_output(fusion)
