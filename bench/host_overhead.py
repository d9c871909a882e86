"""Host cost of a cached `fd.execute`, with the kernels launched and with every launch made a no-op.

    PYTHONPATH=. python3 bench/host_overhead.py [--profile] [example ...]

Prints, per example, microseconds per cached call (the fastest round, see `per_call_us`): the whole
call, and the call with each kernel launch (`KernelLauncher.__call__` and `.launch`) replaced by a
no-op, which leaves hfuse's own host work (lookup, allocation, bookkeeping). Their difference is what
the launches cost.
`--profile` also prints where the time of the first example's cached calls goes (cProfile).

On a GPU the examples are the nanoGPT sizes. Without one they are the small sizes, and only the no-op
column is measured (and profiled): Triton's interpreter would time numpy, not the launches.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time

import torch

from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.runtime.launcher import KernelLauncher

GPU_CALLS = 10_000
CPU_CALLS = 20_000
ROUNDS = 20


def per_call_us(fn, calls: int) -> float:
    """The fastest of 20 rounds of `calls / 20` calls: other work on the machine only slows a round down."""
    cuda = torch.cuda.is_available()
    for _ in range(100):
        fn()
    per_round = calls // ROUNDS
    best = float("inf")
    for _ in range(ROUNDS):
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter_ns()
        for _ in range(per_round):
            fn()
        if cuda:
            torch.cuda.synchronize()
        best = min(best, (time.perf_counter_ns() - start) / per_round / 1e3)
    return best


def print_profile(call) -> None:
    cProfile.runctx("for _ in range(2000): call()", globals(), {"call": call}, "/tmp/host_overhead.prof")
    pstats.Stats("/tmp/host_overhead.prof").sort_stats("tottime").print_stats(20)


def _no_launch(self: KernelLauncher, args) -> object:
    return lambda: None


def _no_lean_launch(self: KernelLauncher, args) -> None:
    return None


def measure(name: str, profile: bool) -> tuple[float | None, float]:
    cuda = torch.cuda.is_available()
    script = load(get_example(name, "nanogpt" if cuda else "small").text)
    fd, inputs = script.fd, script.inputs

    def call() -> object:
        return fd.execute(inputs, alias_outputs=False)

    call()
    whole = per_call_us(call, GPU_CALLS) if cuda else None
    if profile and cuda:
        print_profile(call)
    launch, lean_launch = KernelLauncher.__call__, KernelLauncher.launch
    KernelLauncher.__call__, KernelLauncher.launch = _no_launch, _no_lean_launch
    try:
        host = per_call_us(call, GPU_CALLS if cuda else CPU_CALLS)
        if profile and not cuda:
            print_profile(call)
    finally:
        KernelLauncher.__call__, KernelLauncher.launch = launch, lean_launch
    return whole, host


def main(argv: list[str]) -> None:
    profile = "--profile" in argv
    names = [a for a in argv if a != "--profile"] or ["qkv_split", "softmax", "layernorm", "rope"]
    rows = [(name, *measure(name, profile and index == 0)) for index, name in enumerate(names)]
    print(f"{'example':<20} {'fd.execute us':>14} {'no-op launches us':>18}")
    for name, whole, host in rows:
        shown = "-" if whole is None else f"{whole:.1f}"
        print(f"{name:<20} {shown:>14} {host:>18.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
