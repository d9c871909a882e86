"""The sidebar's share box: the link to what is on screen, and a short link on request."""

from __future__ import annotations

import urllib.parse

import streamlit as st

from hfuse import share
from hfuse.errors import HfuseError
from ui import state
from ui.literal import literal


def _page_url() -> str:
    """This page's address without its query (st.context.url), or a relative link where unknown."""
    url = st.context.url or ""
    parts = urllib.parse.urlsplit(url)
    return (
        urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        if parts.netloc
        else parts.path
    )


def render() -> None:
    sidebar = st.sidebar
    sidebar.subheader("Share")
    if not state.definition():
        sidebar.caption("Nothing to share: the editor is empty.")
        return
    params = state.link_params()
    link = f"{_page_url()}?{share.link_query(params)}"
    short = state.short_link_of_current_text()
    if short is not None:
        sidebar.caption(f"Short link (id `{short}`), stored on this server:")
        sidebar.code(link, language=None, wrap_lines=True)
        return
    size = len(share.link_query(params))
    if share.is_long(params):
        sidebar.warning(
            f"This link is {size / 1024:.1f} KB; many servers refuse links over 8 KB. "
            "Make a short link instead."
        )
    else:
        sidebar.caption(f"The address bar holds the link to this view ({size} characters).")
    if sidebar.button(
        "Make a short link",
        key="make_short_link",
        icon=":material/link:",
        help="Stores the definition on this server under its content hash",
    ):
        try:
            state.make_short_link()
        except HfuseError as err:
            sidebar.error(literal(str(err)))
            return
        st.rerun()
