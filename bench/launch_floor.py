"""What one kernel launch costs on this GPU, measured as the suite measures its candidates (GPU only).

    PYTHONPATH=. python3 bench/launch_floor.py

A Triton kernel of one program that touches no memory, and the same launched twice in a row (a split
reduction's two launches): the GPU time the profiler gives one call's kernels (`device us`, the suite's
device column), `do_bench`'s median with L2 flushed before each call (`kernel us`, the suite's first
column), and the host's wall time per call in a loop (`e2e us`). The few-row target of the extended suite
reads: device time within 2x of a clone of the same bytes plus one launch; this is the launch.

Then the host's cost of one launch of a compiled copy kernel of four parameters (the fastest of 20 rounds,
us a launch) by each path a cached call can take: Triton's dispatch (`kernel[grid](...)`), Triton 3.6's C
launch function as hfuse binds it, hfuse's own C launch function (`hfuse.runtime.cuda_launch`), and the
replay of a CUDA graph holding the launch; beside them a Python call that does nothing. The paths' rounds
are interleaved.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch
import triton
import triton.language as tl

from hfuse.runtime.cuda_launch import bound_launch
from hfuse.runtime.launcher import bound_c_launch
from hfuse.service.measure import device_us, kernel_us, loop_us

ROUNDS, PER_ROUND = 20, 1000


@triton.jit
def _nothing(flag):
    if flag == 12345:  # never: the kernel only starts and ends
        tl.device_print("unreachable")


@triton.jit
def _copy(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offsets, tl.load(x + offsets, mask=offsets < n), mask=offsets < n)


def _one() -> None:
    _nothing[(1,)](0)


def _two() -> None:
    _nothing[(1,)](0)
    _nothing[(1,)](0)


def per_launch_us(paths: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Each path's fastest of ROUNDS rounds of back-to-back calls until the GPU is done, the paths'
    rounds interleaved so that the machine's moods fall on all alike."""
    best = dict.fromkeys(paths, float("inf"))
    for fn in paths.values():
        for _ in range(100):
            fn()
    for _ in range(ROUNDS):
        for name, fn in paths.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(PER_ROUND):
                fn()
            torch.cuda.synchronize()
            best[name] = min(best[name], (time.perf_counter() - start) / PER_ROUND * 1e6)
    return best


def launch_paths() -> dict[str, Callable[[], object]]:
    """One launch of a compiled 4-parameter copy kernel by each path, each checked to copy."""
    x, y = torch.randn(1000, device="cuda"), torch.empty(1000, device="cuda")
    compiled = _copy[(1,)](x, y, 1000, BLOCK=1024)
    stream = torch._C._cuda_getCurrentRawStream
    args = (x.data_ptr(), y.data_ptr(), 1000, 1024)
    triton_c = bound_c_launch(compiled, (1, 1, 1), x.device)
    own = bound_launch(compiled, (1, 1, 1))
    paths: dict[str, Callable[[], object]] = {"a Python call doing nothing": lambda: None}
    paths["Triton's dispatch"] = lambda: _copy[(1,)](x, y, 1000, BLOCK=1024)
    if triton_c is not None:
        paths["Triton's C launch (bound)"] = lambda: triton_c(*args)
    if own is not None:
        paths["hfuse's own C launch"] = lambda: own(stream(0), *args)
    graph, side = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    with torch.cuda.stream(side), torch.cuda.graph(graph):
        _copy[(1,)](x, y, 1000, BLOCK=1024)
    paths["CUDA graph replay"] = graph.replay
    for name, fn in paths.items():
        y.zero_()
        fn()
        torch.cuda.synchronize()
        if name != "a Python call doing nothing":
            assert torch.equal(x, y), f"{name} did not copy"
    return paths


def main() -> None:
    print(f"{'launches':<10} {'device us':>10} {'kernel us':>10} {'e2e us':>10}")
    for name, fn in (("1", _one), ("2", _two)):
        fn()
        torch.cuda.synchronize()
        device, kernel, e2e = device_us(fn, calls=50), kernel_us(fn), loop_us(fn, 5000)
        print(f"{name:<10} {device:>10.2f} {kernel:>10.2f} {e2e:>10.2f}")
    print(f"\n{'launch path':<30} {'host us':>8}")
    for name, us in per_launch_us(launch_paths()).items():
        print(f"{name:<30} {us:>8.2f}")


if __name__ == "__main__":
    main()
