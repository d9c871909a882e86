"""Autotuning's choice and its on-disk cache, with a fake timer (no GPU needed)."""

from __future__ import annotations

import json

import pytest
import torch

import hfuse
from hfuse import settings
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.runtime import autotune
from hfuse.runtime.kernel_cache import load_kernel


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(settings.CACHE_DIR.env, str(tmp_path))
    return tmp_path


def _fusion(n: int = 3000) -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([n], DataType.Float)
    (out,) = b.add(Op.EXP, [x])
    b.add_output(out)
    return b.build()


def _block(kernel) -> int:
    return kernel.config["parts"][0]["BLOCK"]


# Distinct candidate sources of `_fusion()`: blocks 512, 1024 (4 warps: exp is long math) and 2048, and
# block 1024 with 8 warps.
DISTINCT = 4


class FakeTimer:
    """Times a kernel from a table by (block size, warps), else by block size; counts the calls."""

    def __init__(self, times: dict[int | tuple[int, int], float]) -> None:
        self.times = times
        self.calls = 0

    def __call__(self, kernel, values) -> float:
        self.calls += 1
        assert [v.name for v in values] == list(kernel.args)
        return self.times.get((_block(kernel), kernel.num_warps), self.times.get(_block(kernel)))


def test_the_fastest_distinct_candidate_is_chosen_and_cached(cache_dir):
    timer = FakeTimer({512: 3.0, 1024: 2.0, 2048: 1.0})
    tuned = autotune.tune(hfuse.compile(_fusion()), timer, "GPU A")
    assert _block(tuned.kernels[0]) == 2048
    assert timer.calls == DISTINCT  # candidates that generate the same source are timed once
    (stored,) = (cache_dir / "autotune").glob("*.json")
    record = json.loads(stored.read_text())
    assert record["options"]["pointwise_block"] == 2048 and len(record["times"]) == DISTINCT


def test_a_warps_candidate_can_win(cache_dir):
    timer = FakeTimer({512: 3.0, 1024: 2.0, 2048: 3.0, (1024, 8): 1.0})
    (kernel,) = autotune.tune(hfuse.compile(_fusion()), timer, "GPU A").kernels
    assert (_block(kernel), kernel.num_warps) == (1024, 8) and "num_warps=8" in kernel.source
    (stored,) = (cache_dir / "autotune").glob("*.json")
    assert json.loads(stored.read_text())["options"]["warps"] == 8


def test_a_stored_choice_is_reused_without_timing_on_the_same_gpu_only():
    autotune.tune(hfuse.compile(_fusion()), FakeTimer({512: 1.0, 1024: 2.0, 2048: 3.0}), "GPU A")
    untimed = FakeTimer({})
    assert _block(autotune.tune(hfuse.compile(_fusion()), untimed, "GPU A").kernels[0]) == 512
    assert untimed.calls == 0
    other_gpu = FakeTimer({512: 3.0, 1024: 1.0, 2048: 2.0})
    assert _block(autotune.tune(hfuse.compile(_fusion()), other_gpu, "GPU B").kernels[0]) == 1024
    assert other_gpu.calls == DISTINCT


def test_other_shapes_are_tuned_apart():
    autotune.tune(hfuse.compile(_fusion(3000)), FakeTimer({512: 1.0, 1024: 2.0, 2048: 3.0}), "GPU A")
    timer = FakeTimer({512: 3.0, 1024: 2.0, 2048: 1.0})
    assert _block(autotune.tune(hfuse.compile(_fusion(5000)), timer, "GPU A").kernels[0]) == 2048
    assert timer.calls == DISTINCT


@pytest.mark.parametrize("damage", ["{not json", '{"options": {"no_such_option": 1}}', ""])
def test_a_damaged_or_outdated_choice_is_tuned_again(cache_dir, damage):
    autotune.tune(hfuse.compile(_fusion()), FakeTimer({512: 1.0, 1024: 2.0, 2048: 3.0}), "GPU A")
    (stored,) = (cache_dir / "autotune").glob("*.json")
    stored.write_text(damage)
    timer = FakeTimer({512: 3.0, 1024: 2.0, 2048: 1.0})
    assert _block(autotune.tune(hfuse.compile(_fusion()), timer, "GPU A").kernels[0]) == 2048
    assert timer.calls == DISTINCT


def test_the_tuned_kernel_computes_the_fusion(device):
    fusion = _fusion()
    tuned = autotune.tune(hfuse.compile(fusion), FakeTimer({512: 1.0, 1024: 2.0, 2048: 3.0}), "GPU A")
    x = torch.randn(3000, device=device)
    out = torch.full_like(x, float("nan"))
    load_kernel(tuned.kernels[0]).launch(x, out)
    torch.testing.assert_close(out, torch.exp(x))


def test_autotuning_is_off_by_default():
    assert settings.AUTOTUNE.default == "0"
