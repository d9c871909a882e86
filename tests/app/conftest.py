"""Every app test stores short links in its own file; `service` runs the app's requests in this process."""

import pytest
from app_harness import InProcessService

from hfuse import share
from hfuse.service import worker


@pytest.fixture(autouse=True)
def link_store(tmp_path, monkeypatch):
    monkeypatch.setenv("HFUSE_LINK_DB", str(tmp_path / "links.sqlite3"))
    return share.ShortLinkStore(tmp_path / "links.sqlite3")


@pytest.fixture
def service(monkeypatch):
    fake = InProcessService()
    monkeypatch.setattr(worker, "shared_service", lambda: fake)
    return fake
