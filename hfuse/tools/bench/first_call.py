"""The first `fd.execute` of examples in a new process, for `hfuse bench`'s first-call table."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch


def first_calls(cases: Sequence[str]) -> list[dict[str, Any]]:
    """The first `fd.execute` of each "subset/name" example in this process, one after the other, after
    CUDA and Triton have started on an unrelated tiny fusion: as in the app, where each new fusion's first
    Run finds CUDA started and nothing of its own compiled. Each case's host time (compile or cache load,
    launch, validation), the part of it spent compiling the fusion and importing and JIT-compiling (or
    loading) its kernels, and the time of each stage (loading the script, then the stages of the plan's
    first run)."""
    from hfuse import DataType, FusionDefinition

    with FusionDefinition() as warm:
        x = warm.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        warm.add_output(warm.ops.neg(x))
    warm.execute([torch.ones(3, device="cuda")])
    found = []
    for case in cases:
        subset, name = case.split("/")
        found.append(_first_call(name, subset))
        torch.cuda.empty_cache()
    return found


def _first_call(name: str, subset: str) -> dict[str, Any]:
    from hfuse.examples import get_example
    from hfuse.loader import load

    text = get_example(name, subset).text
    load_start = time.perf_counter()
    script = load(text, device="cuda")
    torch.cuda.synchronize()
    load_ms = (time.perf_counter() - load_start) * 1e3
    start = time.perf_counter()
    script.fd.execute(script.inputs, alias_outputs=False, profile=True)
    torch.cuda.synchronize()
    profile = script.fd.profile()
    return {
        "host_ms": profile.host_time_ms,
        "compile_ms": profile.compile_time_ms,
        "with_profile_ms": (time.perf_counter() - start) * 1e3,
        "stages_ms": {"load script": load_ms, **dict(profile.stages_ms)},
    }
