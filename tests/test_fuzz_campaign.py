"""The GPU fuzz campaign's machinery, run here at the interpreter's sizes: its workers, its verdicts, and
the GPU-sized fusions it draws."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

from fuzz_campaign import run_one, schedules
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from random_fusions import (
    BOUNDARY_EXTENTS,
    GPU,
    GPU_NUMEL,
    HUGE_SHAPES,
    INT32_LIMIT,
    SMALL,
    _Grower,
    extremes,
    fusions,
)
from segment_cases import Builder

from hfuse.dtypes import DataType
from hfuse.printer import print_fusion

CAMPAIGN = Path(__file__).parent / "fuzz_campaign.py"
DRAWS = settings(max_examples=150, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
                 suppress_health_check=list(HealthCheck))  # fmt: skip


def _campaign(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(Path(__file__).parents[1])}
    command = [sys.executable, str(CAMPAIGN), "--scale", "small", "--device", "cpu", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_a_small_campaign_runs_every_fusion_it_is_asked_for_and_names_the_schedules():
    done = _campaign("--fusions", "4", "--workers", "2", "--seconds", "200")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4/4 fusions, 0 failures" in done.stdout
    assert "pointwise" in done.stdout.split("schedules the kernels used")[1]


def test_a_campaign_out_of_time_says_so_in_its_exit_status():
    done = _campaign("--fusions", "3", "--workers", "1", "--seconds", "0")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "0/3 fusions" in done.stdout


def test_a_failing_fusion_is_reported_with_its_definition():
    fusion = _one(fusions(SMALL))

    def broken_engine(fusion, device):
        raise AssertionError("hfuse, alias_outputs=True: T3: 7 of 12 elements differ")

    ran = run_one(5, fusion, "cpu", broken_engine)
    assert ran.worker == 5 and "7 of 12 elements differ" in ran.failure
    assert ran.script == print_fusion(fusion) and "define_tensor" in ran.script


def _drawn(strategy) -> list:
    found = []
    DRAWS(given(strategy)(lambda value: found.append(value)))()
    return found


def _one(strategy):
    return _drawn(strategy)[0]


@DRAWS
@given(fusion=fusions(GPU))
def test_gpu_sized_fusions_have_inputs_at_boundaries_within_the_size_budget(fusion):
    for name in fusion.inputs:
        value = fusion.value(name)
        assert set(value.shape) <= set(BOUNDARY_EXTENTS)
        assert math.prod(value.shape) <= GPU_NUMEL


@DRAWS
@given(data=st.data())
def test_a_pad_past_the_size_budget_crops_without_emptying_a_dim(data):
    """A pad that would outgrow the budget keeps its crops only, and not one that leaves a dim of 0: a
    max over it is undefined, and torch refuses it (a campaign once drew one)."""
    b = Builder()
    x = b.define_tensor((1, 8, 5), DataType.Float)
    (padded,) = _Grower(data.draw, b, [x], max_numel=1).pad(x)
    assert all(n >= 1 for n in padded.shape) and math.prod(padded.shape) <= math.prod(x.shape)


def test_gpu_sized_fusions_use_extreme_constants():
    texts = [print_fusion(f) for f in _drawn(fusions(GPU))]
    assert any("inf" in t for t in texts) and any("nan" in t for t in texts)


def test_huge_shapes_cross_int32_and_extremes_end_each_dtype():
    assert all(math.prod(shape) > INT32_LIMIT for shape in HUGE_SHAPES)
    assert extremes(DataType.Int32) == (2**31 - 1, -(2**31))
    bf16 = extremes(DataType.BFloat16)
    assert math.inf in bf16 and -math.inf in bf16 and any(math.isnan(v) for v in bf16)
    assert 3.3e38 < max(v for v in bf16 if math.isfinite(v)) < 3.4e38


def test_schedules_name_the_forms_a_kernel_took():
    class Kernel:
        scheduler, launches = "reduction", 2
        source = "pid = tl.program_id(0).to(tl.int64)"
        config = {"parts": [{"persistent": False, "outer": True, "PARTS": 4}]}

    assert schedules(Kernel()) == {
        "reduction", "reduction, looped row", "reduction, outer (column) reduction",
        "reduction, row split across programs", "reduction, split reduction (2 launches)", "int64 offsets",
    }  # fmt: skip


def test_a_device_fault_is_marked_so_its_worker_makes_way_for_a_fresh_one():
    fusion = _one(fusions(SMALL))

    def faulting_engine(fusion, device):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    def wrong_engine(fusion, device):
        raise AssertionError("hfuse: T3: 7 of 12 elements differ")

    assert run_one(0, fusion, "cpu", faulting_engine).device_fault
    assert not run_one(0, fusion, "cpu", wrong_engine).device_fault


# the engine check of a worker process whose second fusion makes a device fault
ENGINE_CHECK = CAMPAIGN.with_name("engine_check.py")
FAULT_ON_THE_SECOND = f"""
import importlib.util
spec = importlib.util.spec_from_file_location("engine_check_itself", {str(ENGINE_CHECK)!r})
itself = importlib.util.module_from_spec(spec)
spec.loader.exec_module(itself)
calls = 0


def check_engine(fusion, device):
    global calls
    calls += 1
    if calls == 2:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    return itself.check_engine(fusion, device)
"""


def test_a_worker_lost_to_a_device_fault_is_replaced_and_every_fusion_still_runs(tmp_path):
    (tmp_path / "fuzz_campaign.py").write_text(CAMPAIGN.read_text())
    (tmp_path / "engine_check.py").write_text(FAULT_ON_THE_SECOND)
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": f"{CAMPAIGN.parents[1]}:{CAMPAIGN.parent}"}
    command = [sys.executable, str(tmp_path / "fuzz_campaign.py"), "--scale", "small", "--device", "cpu"]
    done = subprocess.run(
        [*command, "--fusions", "3", "--workers", "1", "--seconds", "200"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "worker 0: a device fault lost its CUDA context; a fresh worker goes on" in done.stdout
    assert "3/3 fusions, 1 failures" in done.stdout  # the fresh worker ran the third, which passed


def test_a_draw_that_reaches_the_limit_on_results_ends_there(monkeypatch):
    """A HUGE fusion's results can reach HFUSE_MAX_OUTPUT_BYTES as it grows (16 GiB without a GPU): the
    draw keeps the steps made so far, as here with a limit a few small steps reach."""
    monkeypatch.setenv("HFUSE_MAX_OUTPUT_BYTES", "256")
    drawn = _drawn(fusions(SMALL))
    assert len(drawn) > 100 and all(f.outputs for f in drawn)
