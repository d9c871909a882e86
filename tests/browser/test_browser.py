"""The app in a real browser: Debian's chromium driven by Playwright against `streamlit run app.py`.

Links, the code editor (a component) and graphviz rendering only happen in a browser. Each page is
also saved as a 1440x900 screenshot under artifacts/screenshots/.
"""

import time
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import expect

from hfuse import share
from hfuse.examples import get_example

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
SEED = get_example("qkv_split").text
RUN_MS = 120_000
OPEN_MS = 30_000  # a click on a page's navigation button opens it within this
DIAGRAM = "[data-testid='stGraphVizChart'] svg"
MAIN = "[data-testid='stMain']"  # the page, without the sidebar and its Run button


def link(base: str, path: str = "", **params: str) -> str:
    return f"{base}/{path}?{urllib.parse.urlencode(params)}"


def settle(page) -> None:
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached")
    page.wait_for_timeout(500)  # the final deltas of a run, and the diagram's layout
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", state="attached")


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def definition_in_url(page) -> str:
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    return share.decode_definition(params["f"][0])


EDITOR_FRAME = "iframe[title*='code_editor']"


def editor(page):
    """The editor, once a rerun that made a new one has removed the old (both stand for a moment)."""
    page.wait_for_function(f"document.querySelectorAll({EDITOR_FRAME!r}).length === 1")
    return page.frame_locator(EDITOR_FRAME).locator(".ace_editor")


def editor_text(page) -> str:
    return editor(page).locator(".ace_content").inner_text()


def type_at_top(page, text: str) -> None:
    area = editor(page)
    area.click()
    page.keyboard.press("Control+Home")
    page.keyboard.type(text)
    page.keyboard.press("Control+Enter")


def nav_button(page, title: str):
    """The sidebar's navigation button of a page."""
    return page.locator(f"[data-testid='stSidebar'] .st-key-nav_{title.lower()} button")


def seed_link(base: str, path: str = "", **options: str) -> str:
    return link(base, path, f=share.encode_definition(SEED), v="1", **options)


def test_a_link_to_the_seed_draws_clusters_and_edits_change_the_url(app_url, page):
    page.goto(seed_link(app_url))
    settle(page)
    svg = page.locator(DIAGRAM).first
    svg.wait_for()
    assert svg.locator("g.cluster").count() >= 1
    assert "T0_slice1" in editor_text(page) or "slice" in editor_text(page)
    screenshot(page, "editor")

    type_at_top(page, "# edited in the browser\n")
    page.wait_for_function(
        "() => !window.location.search.includes('" + share.encode_definition(SEED)[:60] + "')"
    )
    settle(page)
    edited = definition_in_url(page)
    assert edited == "# edited in the browser\n" + SEED
    edited_url = page.url

    page.goto(edited_url)
    settle(page)
    editor(page).wait_for()
    assert "# edited in the browser" in editor_text(page)
    page.locator(DIAGRAM).first.wait_for()


def test_short_link_round_trip(app_url, page):
    page.goto(seed_link(app_url))
    settle(page)
    editor(page).wait_for()  # the editor has loaded the text: none of its events can arrive after the click
    settle(page)
    page.get_by_role("button", name="Make a short link").click()
    page.wait_for_function("() => window.location.search.includes('s=')")
    settle(page)
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert params["s"] == [share.short_id(SEED)] and "f" not in params
    short_url = page.url

    page.goto(short_url)
    settle(page)
    editor(page).wait_for()
    assert "fd.ops.permute" in editor_text(page)
    assert page.locator(DIAGRAM).first.locator("g.cluster").count() >= 1


def test_a_bad_script_shows_its_error_and_keeps_the_text(app_url, page):
    page.goto(seed_link(app_url))
    settle(page)
    type_at_top(page, "oops(\n")
    alert = page.locator("[data-testid='stAlert']", has_text="ParseError")
    alert.wait_for()
    settle(page)
    assert "line 1" in alert.inner_text()
    assert "^" in page.locator("[data-testid='stCode']").first.inner_text()
    assert editor_text(page).startswith("oops(")
    screenshot(page, "editor_error")
    assert definition_in_url(page).startswith("oops(\n")
    nav_button(page, "IR").click()
    settle(page)
    nav_button(page, "Editor").click()
    settle(page)
    editor(page).wait_for()
    assert editor_text(page).startswith("oops(")


def open_page_once(page, name: str, heading: str, *, press_ms: int = 0) -> None:
    """One click on a page's navigation button (held `press_ms` between press and release): the page
    opens, stays open and is the one highlighted."""
    nav_button(page, name).click(delay=press_ms)
    # The click's run ends in a switch to the page; the browser shows the script as idle in between.
    page.get_by_role("heading", name=heading, exact=True).wait_for(timeout=OPEN_MS)
    settle(page)
    page.wait_for_timeout(1000)  # time for any rerun the editor's blur event sends
    settle(page)
    assert page.get_by_role("heading", name=heading, exact=True).count() == 1, f"{name} did not stay open"
    assert nav_button(page, name).get_attribute("data-testid") == "stBaseButton-primary"


def test_one_click_on_a_page_button_after_typing_keeps_the_text_and_opens_the_page(app_url, page):
    """The editor sends its blur event when the click takes the focus away. As a hand clicks (the
    button held a moment) the event goes before the click; a click without that pause sends it with
    the click. Either way the typed text is kept and the click opens the page."""
    page.goto(seed_link(app_url))
    settle(page)
    editor(page).click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("# typed, then Run\n")
    open_page_once(page, "Run", "Run", press_ms=120)
    assert definition_in_url(page) == "# typed, then Run\n" + SEED
    page.locator(MAIN).get_by_role("button", name="Run", exact=True).wait_for()

    open_page_once(page, "Editor", "Fusion definition")
    editor(page).click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("# typed, then IR\n")
    open_page_once(page, "IR", "Fusion IR")  # an instant click: the blur event goes with it
    typed = "# typed, then IR\n# typed, then Run\n" + SEED
    assert definition_in_url(page) == typed

    open_page_once(page, "Editor", "Fusion definition")
    type_at_top(page, "# applied, then Code\n")  # Ctrl+Enter applies it before the click
    applied = "# applied, then Code\n" + typed
    page.wait_for_function("(f) => window.location.search.includes(f)", arg=share.encode_definition(applied))
    settle(page)
    open_page_once(page, "Code", "Generated code")
    assert definition_in_url(page) == applied


PAGES = {  # url path: (title in the navigation, heading)
    "ir": ("IR", "Fusion IR"),
    "segments": ("Segmentation", "Segmentation"),
    "code": ("Code", "Generated code"),
    "run": ("Run", "Run"),
}


@pytest.mark.parametrize("path", PAGES, ids=PAGES.keys())
def test_every_page_opens_from_its_link_and_renders_without_tracebacks(app_url, page, path):
    options = {"outputs": "contiguous"} if path in ("code", "run") else {}  # kernels to show and run
    page.goto(seed_link(app_url, path, **options))
    settle(page)
    title, heading = PAGES[path]
    page.get_by_role("heading", name=heading, exact=True).wait_for()
    assert nav_button(page, title).get_attribute("data-testid") == "stBaseButton-primary"
    assert urllib.parse.urlsplit(page.url).path == f"/{path}" and definition_in_url(page) == SEED
    assert all(f"{name}={value}" in page.url for name, value in options.items())
    if path in ("ir", "segments"):
        page.locator(DIAGRAM).nth(1).wait_for()
        assert page.locator(DIAGRAM).count() == 2
    if path == "code":
        source = page.locator("[data-testid='stCode']", has_text="@triton.jit")
        source.first.wait_for()  # the page's columns render one after the other
    if path == "run":
        page.locator(MAIN).get_by_role("button", name="Run", exact=True).click()
        page.locator("[data-testid='stAlert']", has_text="outputs match torch").wait_for(timeout=RUN_MS)
        settle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, path)


def test_boundaries_are_drawn_and_explained(app_url, page):
    softmax = get_example("softmax").text
    page.goto(link(app_url, "segments", f=share.encode_definition(softmax), v="1"))
    settle(page)
    page.locator(DIAGRAM).nth(1).wait_for()  # graphviz lays the diagrams out after the run, one by one
    naive, fused = page.locator(DIAGRAM).all()
    assert naive.locator("g.cluster").count() == 5 and fused.locator("g.cluster").count() == 1
    assert naive.locator("g.edge text", has_text="B1").count() == 1
    assert page.get_by_text("Why the kernels are split").count() == 1
    screenshot(page, "segments_softmax")


SLOW = """from nvfuser import FusionDefinition, DataType
import torch

inputs = [torch.randn(3000, 3000, device="cuda")]
with FusionDefinition() as fd:
    x = fd.from_pytorch(inputs[0])
    y = fd.ops.exp(fd.ops.sin(fd.ops.mul(x, x)))
    fd.add_output(fd.ops.tanh(fd.ops.add(y, x)))
fd.execute(inputs)
"""


def test_cancel_stops_a_long_run_and_the_next_run_goes_ahead(app_url, page):
    """A run of 9M elements in the interpreter takes many seconds: Cancel ends it at once (its worker is
    replaced), the page says so, and a run of another definition then runs to its end."""
    page.goto(link(app_url, "run", f=share.encode_definition(SLOW), v="1"))
    settle(page)
    page.locator(MAIN).get_by_role("button", name="Run", exact=True).click()
    status = page.locator("[data-testid='stExpander']", has_text="Compiling and running")
    status.get_by_text("1 s: compiling and running").wait_for(timeout=OPEN_MS)  # the seconds count up
    status.get_by_text("2 s: compiling and running").wait_for(timeout=OPEN_MS)
    bar = status.locator("[data-testid='stProgress']")
    assert "(an estimate:" in bar.inner_text()
    assert float(bar.get_by_role("progressbar").get_attribute("aria-valuenow")) > 0
    screenshot(page, "run_in_progress")
    page.locator(MAIN).get_by_role("button", name="Cancel", exact=True).click()
    started = time.monotonic()
    page.locator("[data-testid='stAlert']", has_text="The run was cancelled").wait_for(timeout=OPEN_MS)
    assert time.monotonic() - started < 10
    settle(page)
    screenshot(page, "run_cancelled")
    page.goto(seed_link(app_url, "run"))
    settle(page)
    page.locator(MAIN).get_by_role("button", name="Run", exact=True).click()
    page.locator("[data-testid='stAlert']", has_text="outputs match torch").wait_for(timeout=RUN_MS)
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_link_opens_the_ir_pages_comparison_and_pasting_one_changes_the_link(app_url, page):
    softmax = get_example("softmax").text
    page.goto(seed_link(app_url, "ir", c=share.encode_definition(softmax)))
    settle(page)
    diff = page.locator("[data-testid='stCode']", has_text="--- in the other definition").first
    diff.wait_for()
    assert "+++ in this one" in diff.inner_text()
    assert (
        page.locator("[data-testid='stAlert']", has_text="compares the definition with another").count() == 1
    )
    field = page.locator(".st-key-compared_definition textarea")
    expect(field).to_have_value(softmax)  # the textarea is drawn before the app fills it
    screenshot(page, "ir_compared")

    field.fill(SEED)
    field.press("Control+Enter")
    page.wait_for_function(
        "() => window.location.search.includes('c=" + share.encode_definition(SEED)[:40] + "')"
    )
    settle(page)
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert share.decode_definition(params["c"][0]) == SEED


def test_the_linked_view_marks_a_values_lines_and_a_lines_values(app_url, page):
    from hfuse.codegen.provenance import computed_values, value_lines
    from hfuse.loader import load
    from hfuse.pipeline import compile_fusion

    text = get_example("layernorm").text
    compiled = compile_fusion(load(text, device="cpu").fusion, strategy="hfuse", alias_outputs=True)
    kernel = compiled.kernels[0]
    value = computed_values(kernel.source)[-1]
    page.goto(link(app_url, "code", f=share.encode_definition(text), v="1"))
    settle(page)
    view = page.frame_locator("iframe[srcdoc*='class=\"panes\"']")
    node = view.locator(f"svg g.node:has(> title:text-is('{value}'))")
    node.click()
    marked = view.locator("section.kernel:not([hidden]) .line.marked")
    marked.first.wait_for()
    assert marked.count() == len(value_lines(kernel.source, value))
    assert value in view.locator("#hint").inner_text()
    assert view.locator("svg g.node.picked").count() == 1
    screenshot(page, "code_linked_view")

    marked.first.click()
    assert view.locator(".line.marked").count() == 1
    picked = view.locator("svg g.node.picked")
    picked.first.wait_for()
    assert value in [
        view.locator("svg g.node.picked title").nth(i).text_content() for i in range(picked.count())
    ]
