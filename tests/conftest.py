"""Fixtures shared by every test module."""

import pytest
import torch


@pytest.fixture
def device() -> str:
    """The device kernels and references run on: the GPU when there is one, else the CPU."""
    return "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty kernel cache folder, no plans in memory, and the run settings at their defaults."""
    from hfuse import settings
    from hfuse.runtime import clear_cache

    monkeypatch.setenv(settings.CACHE_DIR.env, str(tmp_path / "kernels"))
    for setting in (settings.POISON_OUTPUTS, settings.MAX_OUTPUT_BYTES):
        monkeypatch.delenv(setting.env, raising=False)
    clear_cache()
    yield
    clear_cache()
