"""hfuse, the fusion IDE: routes to the pages and keeps the link in the address bar up to date."""

import streamlit as st

from ui import navigation, share_box, state, views
from ui.literal import literal

st.set_page_config(page_title="hfuse", page_icon=":material/account_tree:", layout="wide")
state.init_session()
edited = state.absorb_editor_event()

pages = [
    st.Page("app_pages/editor.py", title="Editor", icon=":material/edit:", default=True),
    st.Page("app_pages/ir.py", title="IR", icon=":material/account_tree:", url_path="ir"),
    st.Page(
        "app_pages/segments.py", title="Segmentation", icon=":material/view_module:", url_path="segments"
    ),
    st.Page("app_pages/code.py", title="Code", icon=":material/code:", url_path="code"),
    st.Page("app_pages/run.py", title="Run", icon=":material/play_arrow:", url_path="run"),
]
page = st.navigation(pages, position="hidden")
navigation.follow_click(pages, page, edited)
navigation.render(pages, page)
st.sidebar.caption(f"Every page shows this fusion: {literal(views.fusion_caption())}")
message = state.link_message()
if message is not None:
    level, text = message
    (st.error if level == "error" else st.warning)(literal(text))
page.run()
share_box.render()
state.sync_url()
