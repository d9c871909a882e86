"""Opening the app in Streamlit's AppTest, and a run service that runs requests in this process."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from hfuse.service.request import failed_result, run_request

ROOT = Path(__file__).resolve().parent.parent.parent
APP = str(ROOT / "app.py")
PAGES = {  # each page's file, and the key of its button in the sidebar's navigation
    "app_pages/editor.py": "nav_editor",
    "app_pages/ir.py": "nav_ir",
    "app_pages/segments.py": "nav_segmentation",
    "app_pages/code.py": "nav_code",
    "app_pages/run.py": "nav_run",
}
TIMEOUT = 120


def open_app(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def graph_sources(at: AppTest) -> list[str]:
    return [element.proto.spec for element in at.get("graphviz_chart")]


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def open_page(at: AppTest, page: str) -> AppTest:
    """A click on the page's button in the sidebar's navigation."""
    return at.button(key=PAGES[page]).click().run()


class InProcessService:
    """Stands in for the run service: runs requests in this process; `failures` come back first."""

    def __init__(self, failures=(), ahead=0):
        self.requests, self.failures, self.ahead = [], list(failures), ahead

    def run(self, request, *, on_wait=None, poll=None):
        self.requests.append(request)
        if self.ahead and on_wait is not None:
            on_wait(self.ahead)
        if poll is not None:
            poll()  # the page's clock: its first tick
        if self.failures:
            return failed_result(self.failures.pop(0))
        return run_request(request)
