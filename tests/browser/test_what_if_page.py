"""The Segmentation page's what-if in a real browser: a merge and a cut tried, drawn beside the current
plan, and both plans run side by side through the run service. Screenshots under artifacts/screenshots/."""

import urllib.parse

import pytest
from test_browser import DIAGRAM, MAIN, RUN_MS, link, screenshot, settle

from hfuse import share
from hfuse.examples import get_example

pytestmark = pytest.mark.browser

SOFTMAX = get_example("softmax").text


def open_what_if(app_url: str, page):
    page.goto(link(app_url, "segments", f=share.encode_definition(SOFTMAX), v="1"))
    settle(page)
    page.locator(DIAGRAM).nth(1).wait_for()
    section = page.get_by_role("heading", name="What if the fusion were cut differently?")
    section.scroll_into_view_if_needed()
    return section


def run_both(page) -> None:
    page.locator(MAIN).get_by_role("button", name="Run both").click()
    page.locator("[data-testid='stExpander']", has_text="Both ran").wait_for(timeout=RUN_MS)
    settle(page)
    page.locator(".st-key-whatif_runs").scroll_into_view_if_needed()


def test_a_merge_of_two_naive_segments_runs_beside_the_current_plan(app_url, page):
    open_what_if(app_url, page)
    page.locator(".st-key-whatif_side").click()
    page.get_by_role("option", name="naive (views allowed)").click()
    settle(page)
    page.get_by_text("One kernel: yes.").wait_for()
    page.locator(MAIN).get_by_role("button", name="Try it: one kernel").click()
    settle(page)
    drawn = page.locator(DIAGRAM).nth(2)
    drawn.wait_for()
    assert drawn.locator("g.cluster", has_text="what-if: 4 kernels").count() == 1
    assert drawn.locator("g.cluster", has_text="current plan: 5 kernels").count() == 1
    page.get_by_text("One kernel: yes.").scroll_into_view_if_needed()
    screenshot(page, "what_if_merge_drawn")
    run_both(page)
    tables = page.locator(".st-key-whatif_runs [data-testid='stDataFrame']")
    assert tables.count() == 2  # the figures side by side, then each kernel beside its partner
    assert page.locator("[data-testid='stAlert']", has_text="The output matches torch.").count() == 2
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "what_if_merge_run")


def test_a_cut_inside_the_fused_kernel_runs_beside_it(app_url, page):
    open_what_if(app_url, page)
    page.locator(".st-key-whatif_change").get_by_text("cut inside a segment").click()
    settle(page)
    page.locator(MAIN).get_by_role("button", name="Try it: cut here").click()
    settle(page)
    page.get_by_text("What-if:").first.wait_for()
    assert page.locator(DIAGRAM).nth(2).locator("g.cluster", has_text="current plan: 1 kernel").count() == 1
    run_both(page)
    assert page.locator("[data-testid='stAlert']", has_text="The output matches torch.").count() == 2
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "what_if_cut_run")
    assert "segments" in urllib.parse.urlsplit(page.url).path


def test_the_ir_pages_comparison_draws_what_changed(app_url, page):
    """This definition against one with a segment_set before the sum: the segment_set drawn as removed."""
    other = SOFTMAX.replace("fd.ops.sum(T4,", "fd.ops.sum(fd.ops.segment_set(T4),")
    params = {"f": share.encode_definition(SOFTMAX), "v": "1", "c": share.encode_definition(other)}
    page.goto(link(app_url, "ir", **params))
    settle(page)
    legend = page.locator("g.cluster", has_text="in this one, against")
    drawn = page.locator(DIAGRAM).filter(has=legend, has_not_text="segments in this one")  # not the segments
    drawn.wait_for()
    assert drawn.locator("g.node", has_text="segment_set").count() == 1  # the op this one does without
    assert drawn.locator("g.node", has_text="changed: other attributes").count() == 1
    drawn.locator("g.cluster").first.scroll_into_view_if_needed()  # the legend, above the graph
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "ir_compared_diagram")


def test_a_shared_comparison_shows_the_segmentation_difference_and_runs_both(app_url, page):
    """This definition (one kernel) against one cut before its sum (three): the kernel kept is marked
    changed, the other two removed; both run, with their figures and each kernel beside its partner."""
    other = SOFTMAX.replace("fd.ops.sum(T4,", "fd.ops.sum(fd.ops.segment_set(T4),")
    params = {"f": share.encode_definition(SOFTMAX), "v": "1", "c": share.encode_definition(other)}
    page.goto(link(app_url, "ir", **params))
    settle(page)
    drawn = page.locator(DIAGRAM, has=page.locator("g.cluster", has_text="in this one: 1 kernel"))
    drawn.wait_for()
    assert drawn.locator("g.cluster", has_text="changed: segment 0 in the other definition").count() >= 1
    assert drawn.locator("g.cluster", has_text="removed").count() >= 2
    page.get_by_text(
        "hfuse's segments, in this one against in the other definition"
    ).scroll_into_view_if_needed()
    screenshot(page, "ir_compared_segments")
    drawn.scroll_into_view_if_needed()
    screenshot(page, "ir_compared_segments_drawn")
    page.locator(MAIN).get_by_role("button", name="Run both").click()
    runs = page.locator(".st-key-other_runs")
    runs.wait_for(timeout=RUN_MS)
    settle(page)
    runs.scroll_into_view_if_needed()
    assert runs.locator("[data-testid='stDataFrame']").count() == 2  # the figures, then kernel by kernel
    assert runs.locator("[data-testid='stAlert']", has_text="The output matches torch.").count() == 2
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "ir_compared_runs")
