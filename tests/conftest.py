"""Fixtures shared by every test module."""

import pytest
import torch


@pytest.fixture
def device() -> str:
    """The device kernels and references run on: the GPU when there is one, else the CPU."""
    return "cuda" if torch.cuda.is_available() else "cpu"
