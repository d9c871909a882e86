"""Host cost of a cached `fd.execute`, with the kernels launched and with every launch made a no-op.

    PYTHONPATH=. python3 bench/host_overhead.py [--profile] [example ...]

Prints, per example (nanoGPT size), microseconds per call over 10,000 cached calls: the whole call,
and the call with each kernel launch (`KernelLauncher.__call__`) replaced by a no-op, which leaves
hfuse's own host work (lookup, allocation, bookkeeping). Their difference is what the launches cost.
`--profile` also prints where the time of the first example's cached calls goes (cProfile).
Needs a GPU: in the interpreter these sizes would take hours.
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

CALLS = 10_000


def per_call_us(fn, calls: int = CALLS) -> float:
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def _no_launch(self: KernelLauncher, args) -> object:
    return lambda: None


def measure(name: str, profile: bool) -> tuple[float, float]:
    script = load(get_example(name, "nanogpt").text)
    fd, inputs = script.fd, script.inputs

    def call() -> object:
        return fd.execute(inputs, alias_outputs=False)

    call()
    whole = per_call_us(call)
    if profile:
        cProfile.runctx("for _ in range(2000): call()", globals(), {"call": call}, "/tmp/host_overhead.prof")
        pstats.Stats("/tmp/host_overhead.prof").sort_stats("tottime").print_stats(20)
    launch = KernelLauncher.__call__
    KernelLauncher.__call__ = _no_launch
    try:
        host = per_call_us(call)
    finally:
        KernelLauncher.__call__ = launch
    return whole, host


def main(argv: list[str]) -> None:
    profile = "--profile" in argv
    names = [a for a in argv if a != "--profile"] or ["qkv_split", "softmax", "layernorm", "rope"]
    rows = [(name, *measure(name, profile and index == 0)) for index, name in enumerate(names)]
    print(f"{'example':<20} {'fd.execute us':>14} {'no-op launches us':>18}")
    for name, whole, host in rows:
        print(f"{name:<20} {whole:>14.1f} {host:>18.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
