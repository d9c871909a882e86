"""Clocks: host wall time everywhere, GPU kernel time with CUDA events (median, L2 flushed) on CUDA."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import torch

T = TypeVar("T")

# do_bench's warm-up and measuring windows, in milliseconds: a few dozen runs of a short kernel.
BENCH_WARMUP_MS = 5
BENCH_REP_MS = 25


def wall_ms(fn: Callable[[], T]) -> tuple[T, float]:
    """The result of one call and its wall time in milliseconds; on CUDA, until the launched work is done."""
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    result = fn()
    if cuda:
        torch.cuda.synchronize()
    return result, (time.perf_counter() - start) * 1e3


def kernel_ms(fn: Callable[[], object]) -> float:
    """Median GPU time of `fn` in milliseconds, measured with CUDA events around each call and L2 flushed
    before each (triton.testing.do_bench). CUDA only."""
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=BENCH_WARMUP_MS, rep=BENCH_REP_MS, return_mode="median"))
