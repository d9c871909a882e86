"""GPU-only tests: everything here is marked `gpu` and skipped where there is no CUDA device."""

import pytest
import torch


def pytest_collection_modifyitems(config, items):
    for item in items:  # under `--dist loadgroup`, one worker runs a definition's runs from one child
        path = getattr(item, "callspec", None) and item.callspec.params.get("path")
        if item.originalname == "test_unseen_definition_matches_reference_on_gpu" and path is not None:
            item.add_marker(pytest.mark.xdist_group(path.stem))
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
