"""The app under a dark system setting: Streamlit's theme follows it, and what hfuse draws itself (the
diagrams, a zoomed diagram, the linked view, marked kernel lines, the tables of reasons) stays readable.

Contrast is WCAG's ratio of relative luminances: 4.5 for text, 3 for lines. Each page is saved as a
screenshot under artifacts/screenshots/, named dark_*.
"""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from test_browser import DIAGRAM, MAIN, RUN_MS, link, screenshot, seed_link, settle

from hfuse import share
from hfuse.examples import get_example
from ui.views import ZOOMED_HEIGHT

pytestmark = pytest.mark.browser

TEXT_CONTRAST = 4.5
LINE_CONTRAST = 3.0
ZOOMED = "iframe[srcdoc*='class=\"card\"']"
LINKED_VIEW = "iframe[srcdoc*='class=\"panes\"']"
# The colours of a diagram's SVG: its card's fill, its texts' fills and its edges' strokes.
SVG_COLOURS = """svg => ({
    card: getComputedStyle(svg.querySelector('g.graph > polygon')).fill,
    texts: [...new Set([...svg.querySelectorAll('g.node text, g.cluster text')]
        .map(t => getComputedStyle(t).fill))],
    edges: [...new Set([...svg.querySelectorAll('g.edge path')].map(p => getComputedStyle(p).stroke))],
})"""


@pytest.fixture
def dark_page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme="dark")
    opened = context.new_page()
    opened.set_default_timeout(60_000)
    yield opened
    context.close()


def luminance(css_colour: str) -> float:
    """WCAG's relative luminance of a computed CSS colour, `rgb(r, g, b)` or `rgba(r, g, b, a)`."""
    red, green, blue = (int(part) / 255 for part in re.findall(r"[\d.]+", css_colour)[:3])
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def assert_dark_theme(page) -> str:
    """The app's theme is dark with light text; its background colour."""
    app = page.locator("[data-testid='stApp']")
    background = app.evaluate("a => getComputedStyle(a).backgroundColor")
    text = page.locator(f"{MAIN} [data-testid='stHeading']").first.evaluate("h => getComputedStyle(h).color")
    assert luminance(background) < 0.05 < luminance(text), (background, text)
    assert contrast(background, text) >= TEXT_CONTRAST
    return background


def assert_readable_diagram(svg) -> None:
    colours = svg.evaluate(SVG_COLOURS)
    assert luminance(colours["card"]) > 0.9, colours  # a light card, whatever the page's theme
    assert colours["texts"] and colours["edges"]
    assert all(contrast(colours["card"], text) >= TEXT_CONTRAST for text in colours["texts"]), colours
    assert all(contrast(colours["card"], edge) >= LINE_CONTRAST for edge in colours["edges"]), colours


@pytest.mark.parametrize("path", ["ir", "segments"])
def test_diagrams_are_readable_on_their_cards_in_a_dark_theme(app_url, dark_page, path):
    dark_page.goto(seed_link(app_url, path))
    settle(dark_page)
    dark_page.locator(DIAGRAM).nth(1).wait_for()  # graphviz lays the two diagrams out one by one
    assert_dark_theme(dark_page)
    diagrams = dark_page.locator(DIAGRAM).all()
    assert len(diagrams) == 2
    for svg in diagrams:
        assert_readable_diagram(svg)
    screenshot(dark_page, f"dark_{path}")


def test_the_reasons_wrap_in_their_tables_and_a_zoomed_diagram_scrolls_on_its_card(app_url, dark_page):
    softmax = get_example("softmax").text
    dark_page.goto(link(app_url, "segments", f=share.encode_definition(softmax), v="1"))
    settle(dark_page)
    background = assert_dark_theme(dark_page)
    reasons = dark_page.locator("[data-testid='stTable']").first
    reasons.scroll_into_view_if_needed()
    cell = reasons.locator("td").last  # a reason: the last column
    fits = reasons.evaluate("t => t.scrollWidth <= t.clientWidth + 1")
    lines = cell.evaluate(
        "c => c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight)"
    )
    assert fits and lines >= 2, "a reason does not wrap within its column"
    assert contrast(background, cell.evaluate("c => getComputedStyle(c).color")) >= TEXT_CONTRAST
    screenshot(dark_page, "dark_segments_reasons")

    dark_page.locator(".st-key-left_zoom").get_by_text("100%", exact=True).click()
    settle(dark_page)
    frame = dark_page.locator(ZOOMED)
    frame.wait_for()
    assert frame.evaluate("f => f.getBoundingClientRect().height") <= ZOOMED_HEIGHT
    card = dark_page.frame_locator(ZOOMED).locator(".card")
    assert card.evaluate("c => c.scrollHeight > c.clientHeight")  # taller than its box: it scrolls
    assert_readable_diagram(card.locator("svg"))
    frame.scroll_into_view_if_needed()
    screenshot(dark_page, "dark_segments_zoomed")


def opened_options(page, choice):
    """A select box's options, opened from the keyboard (a click may only move the focus out of the linked
    view). On a loaded machine the key can come before the box has the focus, and the list stays shut: the
    key is pressed again."""
    options = page.locator("[role='listbox'] [role='option']")
    for _ in range(3):
        choice.focus()
        choice.press("ArrowDown")
        try:
            options.first.wait_for(timeout=10_000)
            return options
        except PlaywrightTimeoutError:
            continue
    raise AssertionError("the select box's options did not open after three key presses")


def test_the_code_pages_linked_view_and_marked_lines_are_readable_in_a_dark_theme(app_url, dark_page):
    dark_page.goto(seed_link(app_url, "code", outputs="contiguous"))
    settle(dark_page)
    background = assert_dark_theme(dark_page)
    view = dark_page.frame_locator(LINKED_VIEW)
    body = view.locator("body")
    body.locator("section.kernel:not([hidden]) .line").first.wait_for()
    page_colour, text = body.evaluate("b => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]")
    assert luminance(page_colour) < 0.05 and contrast(page_colour, text) >= TEXT_CONTRAST
    assert_readable_diagram(view.locator("#diagram svg"))
    screenshot(dark_page, "dark_code_linked_view")

    lines_of = dark_page.locator("[data-testid='stSelectbox']", has_text="Show the lines of")
    opened_options(dark_page, lines_of.get_by_role("combobox")).first.click()
    settle(dark_page)
    code = dark_page.locator("[data-testid='stHtml'] pre")
    code.wait_for()
    assert code.locator("span[style*='background']").count() >= 1
    assert contrast(background, code.evaluate("c => getComputedStyle(c).color")) >= TEXT_CONTRAST
    code.scroll_into_view_if_needed()
    screenshot(dark_page, "dark_code_marked_lines")


def test_the_run_page_reports_in_a_dark_theme(app_url, dark_page):
    dark_page.goto(seed_link(app_url, "run", outputs="contiguous"))
    settle(dark_page)
    assert_dark_theme(dark_page)
    dark_page.locator(MAIN).get_by_role("button", name="Run", exact=True).click()
    dark_page.locator("[data-testid='stAlert']", has_text="outputs match torch").wait_for(timeout=RUN_MS)
    settle(dark_page)
    dark_page.locator("[data-testid='stDataFrame'] canvas").first.wait_for()  # the report, not its skeleton
    dark_page.locator("[data-testid='stMetric']").first.wait_for()
    assert dark_page.locator("[data-testid='stException']").count() == 0
    screenshot(dark_page, "dark_run")
