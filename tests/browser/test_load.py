"""Many users at once: 8 browser sessions against one `streamlit run`, each opening its own fusion,
editing it and running it at the same moment. No session may see another's fusion, runs must take
turns, every run must finish, and the server must answer its health check throughout.

The figures (time to the diagram, to the run's result, health-check latencies, the run log) are
written to artifacts/load/load_test.json.
"""

import asyncio
import json
import re
import statistics
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from hfuse import share

pytestmark = [pytest.mark.browser, pytest.mark.alone]

SESSIONS = 8
REPORT = Path(__file__).resolve().parents[2] / "artifacts" / "load" / "load_test.json"
STEP_MS = 150_000
OPEN_MS = 60_000  # a click on a page's navigation button opens it within this, all sessions busy
HEALTH_EVERY_S = 0.5
HEALTH_TIMEOUT_S = 5
DIAGRAM = "[data-testid='stGraphVizChart'] svg"
MAIN = "[data-testid='stMain']"  # the page, without the sidebar and its Run button
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUN_LOG = re.compile(r"started (\d\d):(\d\d):(\d\d\.\d{3}), finished (\d\d):(\d\d):(\d\d\.\d{3})")


def shape(i: int) -> tuple[int, int]:
    return 2 + i, 97 + i  # "Float[2, 97]" ... "Float[9, 104]": no one's label is part of another's


def fusion_text(i: int) -> str:
    rows, cols = shape(i)
    return f"""import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    fd.add_output(T1)

inputs = [torch.randn({rows}, {cols}, device="cuda")]
fd.execute(inputs)
"""


def marker(i: int) -> str:
    return f"# session {i} edited this\n"


def label(i: int) -> str:
    rows, cols = shape(i)
    return f"Float[{rows}, {cols}]"


def seconds_of_day(hours: str, minutes: str, seconds: str) -> float:
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


class HealthPoller(threading.Thread):
    """GET /_stcore/health every HEALTH_EVERY_S until stopped; keeps (latency, answered ok) of each."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url, self.polls, self.stopped = f"{url}/_stcore/health", [], threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(HEALTH_EVERY_S):
            start = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=HEALTH_TIMEOUT_S) as response:
                    ok = response.read().strip() == b"ok"
            except OSError:
                ok = False
            self.polls.append((time.monotonic() - start, ok))


async def settle(page) -> None:
    await page.wait_for_selector(IDLE, state="attached")
    await page.wait_for_timeout(500)
    await page.wait_for_selector(IDLE, state="attached")


async def go_to(page, name: str, heading: str) -> None:
    """One click on a page's button in the sidebar's navigation must open it and keep it open."""
    await page.locator(f"[data-testid='stSidebar'] .st-key-nav_{name.lower()} button").click()
    # The click's run ends in a switch to the page; the browser shows the script as idle in between.
    await page.get_by_role("heading", name=heading, exact=True).wait_for(timeout=OPEN_MS)
    await settle(page)
    await page.wait_for_timeout(1000)  # time for any rerun the editor's blur event sends
    await settle(page)
    assert await page.get_by_role("heading", name=heading, exact=True).count() == 1, f"{name} did not open"


async def diagram_text(page) -> str:
    await page.locator(DIAGRAM).first.wait_for()
    return await page.locator(DIAGRAM).first.text_content()


async def session(browser, url: str, i: int, barrier: asyncio.Barrier) -> dict:
    """One user: open the link, edit, wait for everyone, run, read the result; returns its figures."""
    context = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(STEP_MS)
    dialogs = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    text, edited = fusion_text(i), marker(i) + fusion_text(i)
    figures = {"session": i}
    try:
        start = time.monotonic()
        await page.goto(f"{url}/?{urllib.parse.urlencode({'f': share.encode_definition(text), 'v': '1'})}")
        shown = await diagram_text(page)
        figures["diagram_s"] = time.monotonic() - start
        assert label(i) in shown

        editor = page.frame_locator("iframe[title*='code_editor']").locator(".ace_editor")
        await editor.click()
        await page.keyboard.press("Control+Home")
        await page.keyboard.type(marker(i))
        start = time.monotonic()
        await page.keyboard.press("Control+Enter")
        await page.wait_for_function(
            "(token) => window.location.search.includes(token)", arg=share.encode_definition(edited)[:80]
        )
        await settle(page)
        figures["edit_s"] = time.monotonic() - start

        await go_to(page, "Run", "Run")
        await page.locator(MAIN).get_by_role("button", name="Run", exact=True).wait_for()
        await settle(page)
        await barrier.wait()  # every session presses Run at the same moment
        start = time.monotonic()
        await page.locator(MAIN).get_by_role("button", name="Run", exact=True).click()
        await page.locator("[data-testid='stAlert']", has_text="outputs match torch").wait_for()
        figures["run_s"] = time.monotonic() - start
        await settle(page)
        log = RUN_LOG.search(await page.get_by_text("Run log (server clock)").inner_text())
        figures["started"] = seconds_of_day(*log.groups()[:3])
        figures["finished"] = seconds_of_day(*log.groups()[3:])
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
        assert share.decode_definition(params["f"][0]) == edited  # its link holds its own text

        await go_to(page, "Editor", "Fusion definition")
        shown = await diagram_text(page)
        await settle(page)
        editor_text = await editor.locator(".ace_content").inner_text()
        figures["others_seen"] = [
            j for j in range(SESSIONS) if j != i and (label(j) in shown or f"session {j} " in editor_text)
        ]
        figures["own_seen"] = label(i) in shown and editor_text.startswith(marker(i).strip())
        figures["exceptions"] = await page.locator("[data-testid='stException']").count()
        figures["dialogs"] = dialogs
        return figures
    except Exception:
        await page.screenshot(path=str(REPORT.parent / f"failed_session_{i}.png"))
        raise
    finally:
        await context.close()


async def all_sessions(url: str, launch: dict) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(**launch)
        try:
            barrier = asyncio.Barrier(SESSIONS)
            return await asyncio.gather(*(session(browser, url, i, barrier) for i in range(SESSIONS)))
        finally:
            await browser.close()


def test_eight_sessions_edit_and_run_at_once(app_url, chromium_launch):
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    health = HealthPoller(app_url)
    health.start()
    start = time.monotonic()
    try:
        results = asyncio.run(all_sessions(app_url, chromium_launch))
    finally:
        health.stopped.set()
        health.join()
    wall = time.monotonic() - start
    runs = sorted((r["started"], r["finished"]) for r in results)
    overlaps = sum(1 for (_, end), (begin, _) in zip(runs, runs[1:], strict=False) if begin < end)
    latencies = [latency for latency, _ in health.polls]
    figures = {
        "sessions": len(results),
        "wall_s": wall,
        "diagram_s": {
            "median": statistics.median(r["diagram_s"] for r in results),
            "max": max(r["diagram_s"] for r in results),
        },
        "run_s": {
            "median": statistics.median(r["run_s"] for r in results),
            "max": max(r["run_s"] for r in results),
        },
        "runs_overlapping": overlaps,
        "health": {
            "polls": len(health.polls),
            "answered_ok": sum(ok for _, ok in health.polls),
            "median_s": statistics.median(latencies),
            "max_s": max(latencies),
        },
        "per_session": results,
    }
    REPORT.write_text(json.dumps(figures, indent=2))
    print(json.dumps({k: v for k, v in figures.items() if k != "per_session"}, indent=2))

    assert len(results) == SESSIONS  # nothing lost: every session's run came back
    for r in results:
        assert r["own_seen"] and r["others_seen"] == [], r
        assert r["exceptions"] == 0 and r["dialogs"] == [], r
    assert overlaps == 0, runs  # runs took turns
    assert figures["health"]["polls"] >= 10
    assert figures["health"]["answered_ok"] == figures["health"]["polls"]
