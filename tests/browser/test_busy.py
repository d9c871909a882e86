"""One short link must not tie up the server: while a first visitor's link compiles a `cat` of 10,001
inputs (about 40 s of codegen for both strategies on one core here, twice the limit below), a second
visitor's edit is answered within ANSWER_S and the health check too; the first visitor sees a spinner,
then the message that the compile was stopped after the server's time limit.

The server runs with the op-inputs limit raised, so that the huge cat is compiled rather than refused as
it is read, and a compile time limit of COMPILE_TIMEOUT_S.
"""

import time
import urllib.parse
import urllib.request

import pytest
from served import served_app

from hfuse import share

pytestmark = [pytest.mark.browser, pytest.mark.alone]  # a response time: measured with no test beside it

HUGE_CAT = """from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    t = fd.define_tensor(shape=[1], contiguity=True, dtype=DataType.Float)
    fd.add_output(fd.ops.cat([t] * 10001, 0))
"""
SEED_FACTS = "1 inputs, 9 ops, 3 outputs. Kernels: naive 3, hfuse 0."  # the default example's status
COMPILE_TIMEOUT_S = 20
ANSWER_S = 2.0
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
DIAGRAM = "[data-testid='stGraphVizChart'] svg"
SPINNER = "[data-testid='stSpinner']"


@pytest.fixture(scope="module")
def busy_app_url(tmp_path_factory):
    settings = {"HFUSE_MAX_OP_INPUTS": "20000", "HFUSE_COMPILE_TIMEOUT_S": str(COMPILE_TIMEOUT_S)}
    with served_app(tmp_path_factory.mktemp("busy_app"), **settings) as url:
        yield url


def settle(page) -> None:
    page.wait_for_selector(IDLE, state="attached")
    page.wait_for_timeout(500)
    page.wait_for_selector(IDLE, state="attached")


def health_s(url: str) -> float:
    start = time.monotonic()
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=30) as response:
        assert response.read().strip() == b"ok"
    return time.monotonic() - start


def test_a_second_visitor_is_answered_while_a_huge_link_compiles(busy_app_url, browser):
    second_context = browser.new_context(viewport={"width": 1440, "height": 900})
    first_context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        second = second_context.new_page()
        second.set_default_timeout(60_000)
        second.goto(busy_app_url)  # the default example
        second.locator(DIAGRAM).first.wait_for()
        settle(second)

        first = first_context.new_page()
        first.set_default_timeout(60_000)
        query = urllib.parse.urlencode({"f": share.encode_definition(HUGE_CAT), "v": "1"})
        assert len(query) < 256  # one short link
        first.goto(f"{busy_app_url}/?{query}")
        first.locator(SPINNER, has_text="Compiling both strategies").wait_for()  # its compile has begun
        compile_seen = time.monotonic()

        # The plain editor: one edit is one rerun (the code editor adds a debounced event of its own).
        second.get_by_text("Plain text editor").click()
        settle(second)
        box = second.locator("[data-testid='stTextArea'] textarea")
        box.fill("# the second visitor\n" + box.input_value())
        link_before = second.evaluate("() => window.location.search")
        asked = time.monotonic()
        box.press("Control+Enter")  # a new text: parsed and compiled anew
        second.wait_for_function("(old) => window.location.search !== old", arg=link_before)
        answered_s = time.monotonic() - asked  # the link is written at the end of the edit's run
        second.wait_for_selector(IDLE, state="attached")
        health = health_s(busy_app_url)
        print(f"second visitor answered in {answered_s:.2f} s, health check in {health:.2f} s")
        assert time.monotonic() - compile_seen < COMPILE_TIMEOUT_S, "the huge compile ended too soon to tell"
        assert first.locator(SPINNER).count() == 1, "the first visitor's compile is no longer running"
        assert second.get_by_text(f"Parsed: {SEED_FACTS}").count() == 1
        assert answered_s < ANSWER_S, f"the second visitor waited {answered_s:.1f} s"
        assert health < ANSWER_S, f"the health check took {health:.1f} s"

        stopped = first.locator("[data-testid='stAlert']", has_text="the compile was stopped after")
        stopped.wait_for(timeout=(COMPILE_TIMEOUT_S + 60) * 1000)
        assert f"the compile was stopped after {COMPILE_TIMEOUT_S} s" in stopped.inner_text()
    finally:
        first_context.close()
        second_context.close()
