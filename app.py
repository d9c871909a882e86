"""hfuse, the fusion IDE: routes to the pages and keeps the link in the address bar up to date."""

import streamlit as st

from ui import share_box, state
from ui.literal import literal

import sys, time
from streamlit.runtime.scriptrunner import get_script_run_ctx
print("TOP", time.monotonic(), get_script_run_ctx().page_script_hash[:8], st.session_state.get("code_editor_0", {}).get("id") if isinstance(st.session_state.get("code_editor_0"), dict) else None, file=sys.stderr, flush=True)
st.set_page_config(page_title="hfuse", page_icon=":material/account_tree:", layout="wide")
state.init_session()
state.absorb_editor_event()

page = st.navigation(
    [
        st.Page("app_pages/editor.py", title="Editor", icon=":material/edit:", default=True),
        st.Page("app_pages/ir.py", title="IR", icon=":material/account_tree:", url_path="ir"),
        st.Page(
            "app_pages/segments.py", title="Segmentation", icon=":material/view_module:", url_path="segments"
        ),
        st.Page("app_pages/code.py", title="Code", icon=":material/code:", url_path="code"),
        st.Page("app_pages/run.py", title="Run", icon=":material/play_arrow:", url_path="run"),
    ]
)
print("NAV", time.monotonic(), page.url_path, file=sys.stderr, flush=True)
message = state.link_message()
if message is not None:
    level, text = message
    (st.error if level == "error" else st.warning)(literal(text))
page.run()
share_box.render()
state.sync_url()
