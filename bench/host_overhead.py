"""Host cost of a cached `fd.execute`, with the kernels launched and with every launch made a no-op.

    PYTHONPATH=. python3 bench/host_overhead.py [--profile] [[subset/]example ...]

Prints, per example, microseconds per cached call (the fastest round, see `per_call_us`): the whole
call, its outputs dropped before the next call (the output pool writes them again); the whole call with
each call's outputs still held during the next (so each call allocates new ones); the whole call with
`static_outputs=True` (no output allocated); and the call with each kernel
launch (`KernelLauncher.__call__` and `.launch`) replaced by a no-op, which leaves hfuse's own host work
(lookup, allocation, bookkeeping). Beside them: the example's plain torch function run eagerly
(`hfuse.baselines`: for softmax and layernorm one torch call), and the host-cost target of a cached
call: 8 us for one kernel, 12 us for two kernels or up to four outputs.
`--profile` also prints where the time of the first example's cached calls goes (cProfile).

The examples (by default EXAMPLES) are the small sizes (tiny tensors, so that the host, not the kernels,
sets the time) unless named with their subset (`extended-decode/bias_grad_bf16`: a split reduction's two
launches). Without
a GPU only the no-op column is measured (and profiled): Triton's interpreter would time numpy, not the
launches.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time

import torch

from hfuse.baselines import baseline
from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.runtime.launcher import KernelLauncher

GPU_CALLS = 10_000
CPU_CALLS = 20_000
ROUNDS = 20
SUBSET = "small"
# the small examples, and a split reduction's two launches at its decode size
EXAMPLES = ("qkv_split", "softmax", "layernorm", "rope", "extended-decode/bias_grad_bf16")


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


def _no_lean_launch(self: KernelLauncher, args, stream=None) -> None:
    return None


def _example(named: str) -> tuple[str, str]:
    """(name, subset) of `subset/name` or of a small example's name."""
    subset, _, name = named.rpartition("/")
    return name, subset or SUBSET


def target_us(named: str) -> float | None:
    """The issue's host-cost target for the example's cached call: by its launches and outputs."""
    name, subset = _example(named)
    fusion = load(get_example(name, subset).text, device="meta").fusion
    launches = sum(k.launches for k in compile_fusion(fusion, alias_outputs=False).kernels)
    if launches == 1 and len(fusion.outputs) == 1:
        return 8.0
    return 12.0 if launches <= 2 and len(fusion.outputs) <= 4 else None


def measure(
    named: str, profile: bool
) -> tuple[float | None, float | None, float | None, float, float | None]:
    """(the whole call, the whole call with its outputs held, the whole call with static outputs, hfuse's
    own host work, the plain torch function's eager call) in us a call."""
    cuda = torch.cuda.is_available()
    name, subset = _example(named)
    script = load(get_example(name, subset).text)
    fd, inputs = script.fd, script.inputs
    plain = baseline(name, subset)
    eager = per_call_us(lambda: plain(*inputs), GPU_CALLS) if cuda else None

    def call() -> object:
        return fd.execute(inputs, alias_outputs=False)

    call()
    held: list[object] = [None]

    def holding() -> None:
        held[0] = call()  # the last call's outputs are held until this call returns

    whole = kept = static = None
    if cuda:
        whole = per_call_us(call, GPU_CALLS)
        kept = per_call_us(holding, GPU_CALLS)
        static = per_call_us(lambda: fd.execute(inputs, alias_outputs=False, static_outputs=True), GPU_CALLS)
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
    return whole, kept, static, host, eager


def _shown(us: float | None) -> str:
    return "-" if us is None else f"{us:.1f}"


def main(argv: list[str]) -> None:
    profile = "--profile" in argv
    names = [a for a in argv if a != "--profile"] or list(EXAMPLES)
    rows = [(name, *measure(name, profile and index == 0)) for index, name in enumerate(names)]
    columns = ("fd.execute us", 14), ("outputs held us", 16), ("static outputs us", 18)
    columns += ("no-op launches us", 18), ("eager us", 9)
    columns += (("target us", 10),)
    wide = max(20, *(len(name) for name in names))
    print(f"{'example':<{wide}} " + " ".join(f"{title:>{width}}" for title, width in columns))
    for name, whole, kept, static, host, eager in rows:
        target = target_us(name)
        met = "" if whole is None or target is None else ("  met" if whole <= target else "  missed")
        shown = (_shown(whole), _shown(kept), _shown(static), f"{host:.1f}", _shown(eager), _shown(target))
        cells = (f"{text:>{width}}" for text, (_, width) in zip(shown, columns, strict=True))
        print(f"{name:<{wide}} " + " ".join(cells) + met)


if __name__ == "__main__":
    main(sys.argv[1:])
