"""The app under test: `streamlit run app.py` on a free loopback port, and Debian's chromium."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--headless",
]
STARTUP_S = 90


def pytest_collection_modifyitems(items):
    """Under `--dist loadgroup` all browser tests run on one worker, one app and one browser at a time:
    two apps rendering diagrams at once on a 2-core machine starve each other past any sane timeout."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.xdist_group("browser"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_healthy(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"streamlit exited with {server.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(
        f"streamlit did not answer {url}/_stcore/health within {STARTUP_S} s:\n{log.read_text()}"
    )


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    port = free_port()
    folder = tmp_path_factory.mktemp("app")
    env = {**os.environ, "HFUSE_LINK_DB": str(folder / "links.sqlite3")}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",  # edits to the sources during a test must not rerun the sessions
    ]
    log = folder / "streamlit.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, server, log)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@pytest.fixture(scope="session")
def chromium_launch() -> dict:
    """How Playwright starts Debian's chromium (its own browsers cannot be downloaded here)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium)")
    return {"executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="module")
def browser(chromium_launch):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(**chromium_launch)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(60_000)
    yield opened
    context.close()
