"""User text on screen stays text in a real browser: no script runs, no element is injected."""

import urllib.parse

import pytest

from hfuse import share
from hfuse.examples import get_example

pytestmark = pytest.mark.browser

PAYLOAD = (
    "<script>alert(1)</script> <img src=x onerror=alert(1)> ![x](http://127.0.0.1:9/x.png) "
    "[click](javascript:alert(1)) :red[injected] $$x^2$$ **bold** `code` www.example.com &lt;b&gt;"
)
SCRIPT = f"""from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[4, 8], dtype=DataType.Float)
    # {PAYLOAD}
    T1 = fd.ops.cast(T0, dtype={PAYLOAD!r})
    fd.add_output(T1)
"""
SEED = share.encode_definition(get_example("qkv_split").text)
LINKS = {
    "error quoting a script": ({"f": share.encode_definition(SCRIPT), "v": "1"}, PAYLOAD),
    "bad line": ({"f": share.encode_definition(SCRIPT.replace("(T0, dtype=", "(T0 ")), "v": "1"}, PAYLOAD),
    "view option": ({"f": SEED, "v": "1", "view": PAYLOAD}, PAYLOAD),
    "format version": ({"f": SEED, "v": PAYLOAD}, PAYLOAD),
    "short id": ({"s": PAYLOAD, "v": "1"}, "<script>alert(1)</script>"),
}
SHOWN_IN = "[data-testid='stAlert'], [data-testid='stCode']"
INJECTED = (
    "img[src='x'], img[src*='127.0.0.1'], a[href^='javascript'], [data-testid='stAlert'] a, "
    "[data-testid='stAlert'] .katex, [data-testid='stAlert'] strong + strong, "
    "[data-testid='stMarkdownContainer'] img"
)


@pytest.mark.parametrize("params, shown", LINKS.values(), ids=LINKS.keys())
def test_user_text_is_shown_literally_and_runs_nothing(app_url, page, params, shown):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{app_url}/?{urllib.parse.urlencode(params)}")
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached")
    # the message quoting the text (every case shows the script tag), however long the page takes
    page.locator(SHOWN_IN, has_text="<script>alert(1)</script>").first.wait_for()
    page.wait_for_timeout(1000)  # time for any injected handler to fire
    shown_texts = page.locator(SHOWN_IN).all_inner_texts()
    texts = [t.replace("\u2060", "") for t in shown_texts]  # the joiners that keep URLs from linking
    assert [t for t in texts if shown in t], texts
    assert page.locator(INJECTED).count() == 0, [
        e.evaluate("e => e.outerHTML.slice(0, 300)") for e in page.locator(INJECTED).all()
    ]
    assert page.locator("script", has_text="alert(1)").count() == 0
    assert page.locator("[data-testid='stException']").count() == 0
    assert dialogs == []
