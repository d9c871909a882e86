"""Pieces every page draws the same way: errors with their line and caret, diagrams with zoom and
downloads, marked source. Each reads in Streamlit's light and dark themes."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import streamlit as st

from hfuse.backends import HFUSE, NAIVE
from hfuse.errors import HfuseError
from hfuse.viz import BACKGROUND as DIAGRAM_BACKGROUND
from ui import pipeline, state
from ui.limit_wording import visitor_text
from ui.literal import literal

CONTEXT_LINES = 2
TITLE_CHARS = 120
FIT = "Fit"
ZOOMS = {FIT: None, "75%": 0.75, "100%": 1.0, "150%": 1.5}
ZOOMED_HEIGHT = 640  # pixels: a zoomed diagram taller than this scrolls
PIXELS_PER_POINT = 4 / 3
SCROLLBAR_PIXELS = 16
MARKED_BACKGROUND = "rgba(255,204,0,0.3)"  # translucent: a marked line reads on a light and a dark theme
_SVG_SIZE = re.compile(r'\b(width|height)="([\d.]+)pt"')


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
    """A graphviz chart fitted to its column, or zoomed in a scroll box where the `dot` binary exists;
    then buttons to download its DOT source (and SVG where `dot` exists).

    `make_dot` may raise HfuseError (a fusion too large to draw, a stage that failed): shown in place.
    """
    try:
        dot_source = make_dot()
    except HfuseError as err:
        show_error(err, state.definition())
        return
    svg = pipeline.svg_of(dot_source)
    zoom = None
    if svg is not None:
        picked = st.segmented_control(
            "Zoom",
            list(ZOOMS),
            default=FIT,
            required=True,
            key=f"{key}_zoom",
            label_visibility="collapsed",
            help="Fit: the whole diagram in its column (full screen from its toolbar). A percentage: "
            "graphviz's own size times that, to scroll through.",
        )
        zoom = ZOOMS[picked]
    if zoom is None:
        st.graphviz_chart(dot_source, width="stretch")
    else:
        page, height = zoomed_svg_page(svg, zoom)
        st.iframe(page, height=height)
    columns = st.columns(2)
    columns[0].download_button(
        "Download .dot",
        dot_source,
        file_name=f"{file_stem}.dot",
        mime="text/vnd.graphviz",
        key=f"{key}_dot",
        icon=":material/download:",
    )
    if svg is not None:
        columns[1].download_button(
            "Download .svg",
            svg,
            file_name=f"{file_stem}.svg",
            mime="image/svg+xml",
            key=f"{key}_svg",
            icon=":material/download:",
        )


def zoomed_svg_page(svg: str, zoom: float) -> tuple[str, int]:
    """A page with graphviz's `svg` at `zoom` times its size in a scroll box, and the page's height in
    pixels: the diagram's, up to ZOOMED_HEIGHT."""
    start = svg.index("<svg")
    end = svg.index(">", start)  # the svg element's opening tag holds its size
    sizes = {name: float(points) * zoom for name, points in _SVG_SIZE.findall(svg, start, end)}
    tag = _SVG_SIZE.sub(lambda size: f'{size[1]}="{sizes[size[1]]:.1f}pt"', svg[start:end])
    body = tag + svg[end:]
    height = min(round(sizes["height"] * PIXELS_PER_POINT) + SCROLLBAR_PIXELS, ZOOMED_HEIGHT)
    page = (
        "<!doctype html><html><head><style>"
        "body { margin: 0; }"
        ".card { width: fit-content; max-width: 100%; height: 100vh; box-sizing: border-box; overflow: auto;"
        f" background: {DIAGRAM_BACKGROUND}; }}"
        "svg { display: block; }"
        f'</style></head><body><div class="card">{body}</div></body></html>'
    )
    return page, height


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
    escaped, so the text shows as itself. Text keeps the theme's colour and the backgrounds are
    translucent, so the block reads in a light and a dark theme."""
    rows = []
    for number, line in enumerate(source.splitlines(), start=1):
        style = f' style="background:{MARKED_BACKGROUND}"' if number in marked else ""
        rows.append(f'<span{style}><span style="opacity:0.55">{number:4d}  </span>{html.escape(line)}</span>')
    return (
        '<pre style="font-size:0.8rem;line-height:1.35;padding:0.8rem;background:rgba(128,128,128,0.1);'
        'border-radius:0.5rem;overflow-x:auto">' + "\n".join(rows) + "</pre>"
    )
