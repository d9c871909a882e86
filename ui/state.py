"""What a browser session holds, and its link: the definition text, the view options, the URL.

The text lives under one session key that no widget owns, so it survives errors, reruns and page
switches (Streamlit forgets a widget's value when the widget is not drawn). Widgets copy into it in
their on_change callbacks. The URL is written from this state at the end of every run, so it always
reproduces what is on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from hfuse import share
from hfuse.backends import HFUSE, NAIVE
from hfuse.errors import HfuseError
from ui.limit_wording import visitor_text

if TYPE_CHECKING:
    from hfuse.service.request import RunResult

DEFINITION = "definition"
EDITOR_VERSION = "editor_version"  # bumped when the text is replaced from outside the editor
LINK_MESSAGE = "link_message"  # (level, text) about the link this session was opened with
SHORT_LINK = "short_link"  # (id, text) of the last short link made or opened
OPTIONS = "options"
PREVIOUS = "previous_definition"  # the text an example or the op builder replaced
ORIGINAL = "original_definition"  # the text before the visitor's own edits: as opened, or as put in
EDITOR_EVENT = "editor_event"  # id of the last code-editor event applied
EDITOR_TYPING = "editor_typing"  # whether this run applies a typing pause of the code editor
SEGMENT = "segment"  # index of the definition of a segments dump chosen in the editor
COMPARED = "compared_definition"  # what the IR page compares the definition with: a text or a link
RUN_REPORT = "run_report"  # ((text, strategy, outputs, segment), RunResult) of the last run that worked
DEFAULT_EXAMPLE = "qkv_split"


@dataclass(frozen=True, slots=True)
class ViewOption:
    """A view choice that travels in the link as `?<name>=<value>`."""

    name: str
    label: str
    choices: tuple[str, ...]
    captions: tuple[str, ...]

    @property
    def default(self) -> str:
        return self.choices[0]

    def caption(self, choice: str) -> str:
        return self.captions[self.choices.index(choice)]


VIEW_OPTIONS = {
    option.name: option
    for option in (
        ViewOption(
            "strategy", "Segmenter", (HFUSE, NAIVE), (f"{HFUSE} (vertical and horizontal fusion)", NAIVE)
        ),
        ViewOption("outputs", "Outputs", ("views", "contiguous"), ("views allowed", "contiguous")),
        ViewOption(
            "compare", "Compare", ("strategies", "outputs"), ("naive vs hfuse", "views vs contiguous outputs")
        ),
        ViewOption("diagram", "Diagram", ("segmentation", "ir"), ("segmentation", "IR")),
    )
}


def init_session() -> None:
    """On a session's first run: take the definition and options from the link it was opened with."""
    if DEFINITION in st.session_state:
        return
    _read_link()
    st.session_state[ORIGINAL] = st.session_state[DEFINITION]


def _read_link() -> None:
    st.session_state[EDITOR_VERSION] = 0
    st.session_state[OPTIONS] = {name: option.default for name, option in VIEW_OPTIONS.items()}
    params = {key: st.query_params[key] for key in st.query_params}
    try:
        state = share.read_link(params, share.default_store())
    except HfuseError as err:
        st.session_state[DEFINITION] = ""
        st.session_state[LINK_MESSAGE] = (
            "error",
            f"This link cannot be opened: {visitor_text(err, str(err))}",
        )
        return
    if state is None:
        st.session_state[DEFINITION] = _default_text()
    else:
        st.session_state[DEFINITION] = state.text
        if state.short_id is not None:
            st.session_state[SHORT_LINK] = (state.short_id, state.text)
        if state.compared is not None:
            st.session_state[COMPARED] = state.compared
    ignored = []
    for name, value in (state.options if state else params).items():
        option = VIEW_OPTIONS.get(name)
        if option is not None and value in option.choices:
            st.session_state[OPTIONS][name] = value
        elif state is not None:
            ignored.append(f"{name}={value}")
    if ignored:
        st.session_state[LINK_MESSAGE] = (
            "warning",
            f"Ignored unknown view options in the link: {', '.join(ignored)}",
        )


def _default_text() -> str:
    from hfuse.examples import get_example

    try:
        return get_example(DEFAULT_EXAMPLE).text
    except HfuseError:
        return ""


def definition() -> str:
    return st.session_state[DEFINITION]


def replace_definition(text: str) -> None:
    """Put a new text in the editor (from an example, the op builder, ...): the editor starts afresh.
    The text it replaces is kept for `restore_previous`."""
    if text == definition():
        return
    st.session_state[PREVIOUS] = definition()
    st.session_state[DEFINITION] = text
    st.session_state[ORIGINAL] = text
    st.session_state[EDITOR_VERSION] += 1
    st.session_state.pop(LINK_MESSAGE, None)


def original_definition() -> str:
    """The text before the visitor's own edits: as the session opened it, or as an example, the builder
    or a segment put it in."""
    return st.session_state.get(ORIGINAL, definition())


def previous_definition() -> str | None:
    return st.session_state.get(PREVIOUS)


def restore_previous() -> None:
    """Swap the text back with the one it replaced (pressing it again swaps again)."""
    previous = st.session_state.get(PREVIOUS)
    if previous is not None:
        replace_definition(previous)


def absorb_editor_event() -> bool:
    """Apply the code editor's last event (typing pause, blur, Ctrl+Enter), once; whether there was one.

    Runs before the page, so an edit sent together with a page switch is not lost although the
    editor is not drawn in that run.
    """
    event = st.session_state.get(code_editor_key())
    st.session_state[EDITOR_TYPING] = False
    if (
        not isinstance(event, dict)
        or not event.get("id")
        or event["id"] == st.session_state.get(EDITOR_EVENT)
    ):
        return False
    st.session_state[EDITOR_EVENT] = event["id"]
    st.session_state[EDITOR_TYPING] = event.get("type") == "change"
    if event.get("type") in ("submit", "change", "blur"):
        set_definition(event.get("text", ""))
    return True


def editor_typing() -> bool:
    """Whether this run comes from a pause in typing: the visitor may go on typing while it runs."""
    return st.session_state.get(EDITOR_TYPING, False)


def code_editor_key() -> str:
    return f"code_editor_{st.session_state[EDITOR_VERSION]}"


def plain_editor_key() -> str:
    return f"plain_editor_{st.session_state[EDITOR_VERSION]}"


def set_definition(text: str) -> None:
    """The editor's own change: the editor keeps its state."""
    st.session_state[DEFINITION] = text
    if text:
        st.session_state.pop(LINK_MESSAGE, None)


def segment() -> int:
    """Which definition of a segments dump the pages show: the one chosen in the editor while the text
    on screen holds it (edits keep the choice), else the first."""
    chosen = st.session_state.get(SEGMENT, 0)
    if chosen == 0:
        return 0
    from ui import pipeline

    try:
        held = len(pipeline.script_of(definition()).segments)
    except HfuseError:
        return 0
    return chosen if chosen < held else 0


def choose_segment(index: int) -> None:
    st.session_state[SEGMENT] = index


def editor_version() -> int:
    return st.session_state[EDITOR_VERSION]


def option(name: str) -> str:
    return st.session_state[OPTIONS][name]


def option_control(name: str, container=st) -> str:
    """A segmented control for a view option; its value is kept in the session and the link."""
    view = VIEW_OPTIONS[name]
    key = f"option_{name}"
    st.session_state[key] = option(name)

    def changed() -> None:
        st.session_state[OPTIONS][name] = st.session_state[key]

    container.segmented_control(
        view.label, view.choices, format_func=view.caption, key=key, on_change=changed, required=True
    )
    return option(name)


def short_link_of_current_text() -> str | None:
    stored = st.session_state.get(SHORT_LINK)
    if stored is not None and stored[1] == definition():
        return stored[0]
    return None


def make_short_link() -> str:
    link_id = share.default_store().put(definition())
    st.session_state[SHORT_LINK] = (link_id, definition())
    return link_id


def link_params() -> dict[str, str]:
    options = dict(st.session_state[OPTIONS])
    text = definition()
    if not text:
        return options
    return share.link_params(text, options, short=short_link_of_current_text(), compared=compared_text())


def compared_text() -> str:
    """What the visitor gave the IR page to compare the definition with, as given; empty when nothing."""
    text = st.session_state.get(COMPARED, "")
    return text if text.strip() else ""


def sync_url() -> None:
    """Write the link of what is on screen into the address bar."""
    params = link_params()
    current = {key: st.query_params[key] for key in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def link_message() -> tuple[str, str] | None:
    return st.session_state.get(LINK_MESSAGE)


def last_run(text: str, strategy: str, outputs: str, segment: int) -> RunResult | None:
    """The session's last run that worked, where it ran this text under these options."""
    shown = st.session_state.get(RUN_REPORT)
    return shown[1] if shown is not None and shown[0] == (text, strategy, outputs, segment) else None
