"""The sidebar's page navigation: one button a page, the page on screen highlighted.

Buttons rather than page links: the code editor sends its last edit when a click takes the focus
away from it, and the browser sends that edit with the same delay as a button click, usually in the
same message. A page link is sent at once, ahead of the edit, and the edit's rerun then carries the
page the browser still shows. When two reruns wait on the server together, Streamlit merges them and
keeps a button's click. So the edit and the page switch arrive in one rerun: the edit is applied
first (`state.absorb_editor_event`), then the page switches.
"""

from __future__ import annotations

import streamlit as st

from ui import state

CLICKED = "clicked_page"  # url path of the page whose navigation button was just clicked
PAGE = "page"  # url path of the page this browser session is on, or is being switched to


def _click(url_path: str) -> None:
    st.session_state[CLICKED] = url_path


def open_editor_with(text: str) -> None:
    """A button's callback: the text goes into the editor and the Editor page (the default, at "") opens."""
    state.replace_definition(text)
    _click("")


def button_key(page: st.Page) -> str:
    return f"nav_{page.title.lower()}"


def follow_click(pages: list[st.Page], shown: st.Page, edited: bool) -> None:
    """Switch to the page of a navigation button's click, or stay on it.

    The page is the one clicked last. A run that only brings an edit keeps it: the code editor sends
    a further event (its typing pause) after the click when the page takes long to switch, and that
    event's rerun carries the page the browser still shows. Any other run (a link, the browser's back
    button, a widget on the page) keeps the page it was sent from.
    """
    clicked = st.session_state.pop(CLICKED, None)
    if clicked is not None:
        st.session_state[PAGE] = clicked
    elif not edited or PAGE not in st.session_state:
        st.session_state[PAGE] = shown.url_path
    if st.session_state[PAGE] != shown.url_path:
        st.switch_page(next(page for page in pages if page.url_path == st.session_state[PAGE]))


def render(pages: list[st.Page], shown: st.Page) -> None:
    for page in pages:
        st.sidebar.button(
            page.title,
            key=button_key(page),
            icon=page.icon,
            type="primary" if page.url_path == shown.url_path else "tertiary",
            width="stretch",
            on_click=_click,
            args=(page.url_path,),
        )
