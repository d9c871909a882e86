"""Pieces every page draws the same way: errors with their line and caret, diagrams with downloads."""

from __future__ import annotations

import html
from collections.abc import Callable

import streamlit as st

from hfuse.backends import HFUSE, NAIVE
from hfuse.errors import HfuseError
from ui import pipeline, state
from ui.limit_wording import visitor_text
from ui.literal import literal

CONTEXT_LINES = 2
TITLE_CHARS = 120


def show_error(err: HfuseError, text: str) -> None:
    """The error's message; for an error with a place in the script, its reason, then the lines around
    that place with a caret under the column."""
    kind = type(err).__name__
    if err.loc is None:
        st.error(f"**{kind}**: {literal(visitor_text(err, str(err)))}")
        return
    line, col = err.loc.line, err.loc.column
    reason, _, example = err.reason.partition("\n")  # a message may end in lines of code to add
    st.error(f"**{kind}** at {err.loc}: {literal(visitor_text(err, reason))}")
    if example:
        st.code(example, language="python")
    lines = text.splitlines()
    first = max(line - 1 - CONTEXT_LINES, 0)
    shown = []
    for number in range(first, min(line, len(lines))):
        shown.append(f"{number + 1:4d} | {lines[number]}")
    shown.append("     | " + " " * max(col - 1, 0) + "^")
    st.code("\n".join(shown), language=None)


def diagram(make_dot: Callable[[], str], file_stem: str, key: str) -> None:
    """A graphviz chart, then buttons to download its DOT source (and SVG where `dot` exists).

    `make_dot` may raise HfuseError (a fusion too large to draw, a stage that failed): shown in place.
    """
    try:
        dot_source = make_dot()
    except HfuseError as err:
        show_error(err, state.definition())
        return
    st.graphviz_chart(dot_source, width="stretch")
    columns = st.columns(2)
    columns[0].download_button(
        "Download .dot",
        dot_source,
        file_name=f"{file_stem}.dot",
        mime="text/vnd.graphviz",
        key=f"{key}_dot",
        icon=":material/download:",
    )
    svg = pipeline.svg_of(dot_source)
    if svg is not None:
        columns[1].download_button(
            "Download .svg",
            svg,
            file_name=f"{file_stem}.svg",
            mime="image/svg+xml",
            key=f"{key}_svg",
            icon=":material/download:",
        )


def current_fusion():
    """The fusion of the text on screen, or None after showing why there is none."""
    text = state.definition()
    if not text.strip():
        st.info("The editor is empty: paste a fusion definition or pick an example on the Editor page.")
        return None
    try:
        return pipeline.fusion_of(text, state.segment())
    except HfuseError as err:
        show_error(err, text)
        return None


def definition_error(text: str, segment: int, outputs: str) -> HfuseError | None:
    """Why the text does not load or does not compile with either segmenter; None when it does."""
    try:
        pipeline.fusion_of(text, segment)
        for strategy in (NAIVE, HFUSE):
            pipeline.compiled_of(text, strategy, outputs, segment)
    except HfuseError as err:
        return err
    return None


def fusion_caption() -> str:
    """Which fusion every page shows: the script's first comment line, else its size."""
    text = state.definition()
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("#") and first.lstrip("# "):
        title = first.lstrip("# ")
        return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 3] + "..."
    try:
        fusion = pipeline.fusion_of(text, state.segment())
    except HfuseError:
        return "a definition that does not load yet"
    return f"{len(fusion.inputs)} inputs, {len(fusion.exprs)} ops, {len(fusion.outputs)} outputs"


def highlighted_code(source: str, marked: set[int]) -> str:
    """Source as an HTML block with line numbers, the `marked` lines (1-based) highlighted; every line is
    escaped, so the text shows as itself."""
    rows = []
    for number, line in enumerate(source.splitlines(), start=1):
        style = ' style="background:#fff3b0"' if number in marked else ""
        rows.append(f'<span{style}><span style="color:#999">{number:4d}  </span>{html.escape(line)}</span>')
    return (
        '<pre style="font-size:0.8rem;line-height:1.35;padding:0.8rem;background:#f6f8fa;overflow-x:auto">'
        + "\n".join(rows)
        + "</pre>"
    )
