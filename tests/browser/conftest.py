"""The app under test: `streamlit run app.py` on a free loopback port, and Debian's chromium."""

import shutil
from pathlib import Path

import pytest
from served import served_app

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--headless",
]


def pytest_collection_modifyitems(items):
    """Under `--dist loadgroup` all browser tests run on one worker, one app and one browser at a time:
    two apps rendering diagrams at once on a 2-core machine starve each other past any sane timeout."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with served_app(tmp_path_factory.mktemp("app")) as url:
        yield url


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
