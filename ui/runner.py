"""A Run: the definition's inputs made for real, its kernels run and checked against torch, and on a
GPU the same fusion with torch eager and torch.compile beside it. One run at a time per server."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

import hfuse
from hfuse.reference import evaluate
from hfuse.runtime import FusionProfile, execute
from hfuse.runtime.device import has_cuda, run_device
from hfuse.tolerance import compare

BASELINES = {"eager": "torch eager", "inductor": "torch.compile"}


@dataclass(frozen=True, slots=True)
class OutputCheck:
    name: str
    shape: tuple[int, ...]
    dtype: str
    ok: bool
    max_abs_error: float
    message: str


@dataclass(frozen=True, slots=True)
class Baseline:
    """The same fusion run by torch: `kernels` counted by torch.profiler (torch segments hold many)."""

    title: str
    kernels: int
    profile: FusionProfile


@dataclass(frozen=True, slots=True)
class RunReport:
    """What the Run page shows; `key` is the (text, strategy, outputs) it was made for."""

    key: tuple[str, str, str]
    on_gpu: bool
    first_call_ms: float  # compile, first launches, validation and host work of the first call
    compile_ms: float  # of the first call; 0 when its kernels were cached by an earlier run
    profile: FusionProfile
    checks: tuple[OutputCheck, ...]
    baselines: tuple[Baseline, ...]


def _reduction_size(fusion: hfuse.Fusion, output: str) -> int:
    """How many input elements at most fold into one output element (widens float tolerances)."""
    largest = max((v.numel for v in fusion.tensors() if v.name in fusion.inputs), default=1)
    return max(largest // max(fusion.value(output).numel, 1), 1)


def _cuda_kernels(run: Callable[[], object]) -> int:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as recorded:
        run()
        torch.cuda.synchronize()
    names = [e.name.lower() for e in recorded.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sum(1 for name in names if "memcpy" not in name and "memset" not in name)


def _cloned(inputs: list) -> list:
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def run_definition(text: str, strategy: str, outputs: str) -> RunReport:
    on_gpu = has_cuda()
    script = hfuse.load(text, device=str(run_device()))
    fusion = script.fusion
    expected = evaluate(fusion, _cloned(script.inputs))  # before the run: outputs may be written into inputs
    start = time.perf_counter()
    results, profile, _ = execute(
        fusion, script.inputs, backend=strategy, alias_outputs=outputs == "views", profile=True
    )
    first_call_ms = (time.perf_counter() - start) * 1e3
    compile_ms = profile.compile_time_ms
    if on_gpu:  # the first call compiled and validated; time a warm call
        results, profile, _ = execute(
            fusion, script.inputs, backend=strategy, alias_outputs=outputs == "views", profile=True
        )
    returned = [
        (out, exp) for out, exp in zip(fusion.outputs, expected, strict=True) if out.alias_input is None
    ]
    checks = []
    for (output, want), got in zip(returned, results, strict=True):
        value = fusion.value(output.name)
        result = compare(got, want, value.dtype, _reduction_size(fusion, output.name))
        checks.append(
            OutputCheck(
                output.name, value.shape, value.dtype.name, result.ok, result.max_abs_error, result.message
            )
        )
    baselines = []
    if on_gpu:
        for backend, title in BASELINES.items():
            execute(fusion, script.inputs, backend=backend, profile=False)  # compile outside the timing
            kernels = _cuda_kernels(
                lambda b=backend: execute(fusion, script.inputs, backend=b, profile=False)
            )
            _, baseline, _ = execute(fusion, script.inputs, backend=backend, profile=True)
            baselines.append(Baseline(title, kernels, baseline))
    return RunReport(
        (text, strategy, outputs), on_gpu, first_call_ms, compile_ms, profile, tuple(checks), tuple(baselines)
    )
