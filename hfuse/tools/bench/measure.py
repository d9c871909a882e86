"""Measurements for `hfuse bench`: the candidates of one case, checked, counted and timed side by side.

Every candidate returns the fusion's outputs in the layout hfuse writes them with `alias_outputs=False`
(eager and torch.compile would otherwise return views where hfuse writes copies), so all move the same
bytes. Kernel time is `triton.testing.do_bench` (L2 flushed before each call, median); end-to-end time
is the host's wall time per call over a loop of back-to-back calls, host work included. Device time
is what the GPU spends in the kernels of one call (their durations added, from torch.profiler), which
leaves out the host time that a whole-call timing counts at small sizes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from hfuse.errors import HfuseError

ROUNDS = 3
WARMUP_MS = 10
REP_MS = 50
LOOP_MS = 20  # host time of one end-to-end loop

Fn = Callable[[], object]


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    fn: Fn
    own_kernels: int | None = None  # kernels the candidate says it launches (hfuse's plan)


@dataclass(frozen=True, slots=True)
class CaseTimes:
    kernels: dict[str, int]
    kernel_us: dict[str, float]  # median of the rounds' do_bench medians
    e2e_us: dict[str, float]  # median of the rounds' loop means
    device_us: dict[str, float]  # median over calls of the call's kernel durations, added
    nbytes: int
    disagreements: tuple[str, ...]  # candidates whose own kernel count torch.profiler does not confirm


def warm_up_gpu(seconds: float = 2.0) -> None:
    """Copies a GiB back and forth for a while, so that the first case is not timed on idle clocks."""
    buffer = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(20):
            buffer.clone()
        torch.cuda.synchronize()


def as_list(out: object) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    return [t for t in out if isinstance(t, torch.Tensor)]


def in_layout(outputs: Sequence[torch.Tensor], like: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """`outputs` copied into the strides of `like` where they differ."""
    laid_out = []
    for out, model in zip(outputs, like, strict=True):
        if out.stride() != model.stride():
            out = torch.empty_strided(model.shape, model.stride(), dtype=out.dtype, device=out.device).copy_(
                out
            )
        laid_out.append(out)
    return laid_out


def saved_in_place_inputs(fusion, inputs: Sequence[object]) -> dict[int, torch.Tensor]:
    """Copies of the inputs that outputs added with `alias_input` overwrite, by position."""
    positions = {name: i for i, name in enumerate(fusion.inputs)}
    targets = {positions[out.alias_input] for out in fusion.outputs if out.alias_input is not None}
    return {i: inputs[i].clone() for i in sorted(targets)}


def restore(inputs: Sequence[object], saved: dict[int, torch.Tensor]) -> None:
    """Puts back the inputs that calls wrote into, so that the next call starts where the first did."""
    for i, value in saved.items():
        inputs[i].copy_(value)


def every_output(fusion, inputs: Sequence[object], returned: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """All of the fusion's outputs in order after a call that returned `returned`: an output added with
    `alias_input` is not returned but written into that input, so it is read from there."""
    positions = {name: i for i, name in enumerate(fusion.inputs)}
    rest = iter(returned)
    return [
        inputs[positions[out.alias_input]] if out.alias_input is not None else next(rest)
        for out in fusion.outputs
    ]


def candidates(
    script, expected_layout: Sequence[torch.Tensor], nbytes: int, plan_kernels: int
) -> list[Candidate]:
    """eager, torch.compile (default and combo kernels), hfuse and a clone of `nbytes` bytes. Each
    returns what `fd.execute` returns and writes in-place outputs into their inputs, as hfuse does."""
    from hfuse.reference import evaluate

    fusion, fd, inputs = script.fusion, script.fd, script.inputs
    returned = [i for i, out in enumerate(fusion.outputs) if out.alias_input is None]

    def reference(*xs: torch.Tensor) -> list[torch.Tensor]:
        results = evaluate(fusion, list(xs))  # also writes in-place outputs into xs
        return in_layout([results[i] for i in returned], expected_layout)

    compiled = torch.compile(reference, dynamic=False)
    with torch._inductor.config.patch(combo_kernels=True):
        compiled_combo = torch.compile(reference, dynamic=False)
        compiled_combo(*inputs)  # compiles under the patched config
    clone_source = torch.empty(max(nbytes // 2, 1), dtype=torch.uint8, device="cuda")
    return [
        Candidate("eager", lambda: reference(*inputs)),
        Candidate("torch.compile", lambda: compiled(*inputs)),
        Candidate("combo", lambda: compiled_combo(*inputs)),
        Candidate("hfuse", lambda: fd.execute(inputs, alias_outputs=False), plan_kernels),
        Candidate("clone", clone_source.clone),
    ]


def check(candidate: Candidate, script, expected: Sequence[torch.Tensor], dtypes, reduction_sizes) -> None:
    """One call of the candidate against `expected`, every output of the fusion (in-place ones read
    from their inputs)."""
    from hfuse.tolerance import compare

    fusion = script.fusion
    returned = as_list(candidate.fn())
    wanted = sum(out.alias_input is None for out in fusion.outputs)
    if len(returned) != wanted:
        raise HfuseError(f"{candidate.name}: {len(returned)} outputs, {wanted} expected")
    actual = every_output(fusion, script.inputs, returned)
    for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
        result = compare(a, e, dtypes[index], reduction_sizes[index])
        if not result.ok:
            raise HfuseError(
                f"{candidate.name}: output {index} disagrees with the reference: {result.message}"
            )


def cuda_kernel_count(fn: Fn) -> int:
    """CUDA kernels one call launches, as torch.profiler sees them (copies and fills left out)."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = [e.name.lower() for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sum(1 for name in names if "memcpy" not in name and "memset" not in name)


def _cuda_kernels(prof) -> list:
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sorted(events, key=lambda e: e.time_range.start)


def device_us(fn: Fn, calls: int = 10) -> float:
    """The GPU time of one call's kernels, L2 flushed before each call: the median over `calls`."""
    from torch.profiler import ProfilerActivity, profile

    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        flush.zero_()
        torch.cuda.synchronize()
    flush_name = _cuda_kernels(prof)[0].name
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            flush.zero_()
            fn()
        torch.cuda.synchronize()
    per_call: list[float] = []
    for event in _cuda_kernels(prof):
        if event.name == flush_name and len(per_call) < calls:
            per_call.append(0.0)
        elif per_call:
            per_call[-1] += event.time_range.elapsed_us()
    return statistics.median(per_call)


def kernel_us(fn: Fn) -> float:
    import triton.testing

    return 1e3 * float(triton.testing.do_bench(fn, warmup=WARMUP_MS, rep=REP_MS, return_mode="median"))


def loop_us(fn: Fn, calls: int) -> float:
    """Host wall time per call of `calls` back-to-back calls, until the GPU is done."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def measure(cands: Sequence[Candidate], nbytes: int) -> CaseTimes:
    """Kernel counts, then ROUNDS interleaved rounds of kernel time and end-to-end time."""
    kernels = {c.name: cuda_kernel_count(c.fn) for c in cands}
    disagreements = tuple(
        f"{c.name}: its plan lists {c.own_kernels} kernels but torch.profiler saw {kernels[c.name]}"
        for c in cands
        if c.own_kernels is not None and c.own_kernels != kernels[c.name]
    )
    kernel_rounds: dict[str, list[float]] = {c.name: [] for c in cands}
    loop_rounds: dict[str, list[float]] = {c.name: [] for c in cands}
    device_rounds: dict[str, list[float]] = {c.name: [] for c in cands}
    for _ in range(ROUNDS):
        for c in cands:
            us = kernel_us(c.fn)
            kernel_rounds[c.name].append(us)
            calls = max(5, min(1000, int(LOOP_MS * 1e3 / max(us, 5.0))))
            loop_rounds[c.name].append(loop_us(c.fn, calls))
            device_rounds[c.name].append(device_us(c.fn))
    return CaseTimes(
        kernels,
        {k: statistics.median(v) for k, v in kernel_rounds.items()},
        {k: statistics.median(v) for k, v in loop_rounds.items()},
        {k: statistics.median(v) for k, v in device_rounds.items()},
        nbytes,
        disagreements,
    )


def first_call(name: str, subset: str) -> dict[str, float]:
    """The first `fd.execute` of an example in this process, after CUDA and Triton have started on an
    unrelated tiny fusion: its host time (compile or cache load, launch, validation), and the part of it
    spent compiling the fusion and importing and JIT-compiling (or loading) its kernels."""
    from hfuse import DataType, FusionDefinition
    from hfuse.examples import get_example
    from hfuse.loader import load

    with FusionDefinition() as warm:
        x = warm.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        warm.add_output(warm.ops.neg(x))
    warm.execute([torch.ones(3, device="cuda")])
    script = load(get_example(name, subset).text, device="cuda")
    torch.cuda.synchronize()
    start = time.perf_counter()
    script.fd.execute(script.inputs, alias_outputs=False, profile=True)
    torch.cuda.synchronize()
    profile = script.fd.profile()
    return {
        "host_ms": profile.host_time_ms,
        "compile_ms": profile.compile_time_ms,
        "with_profile_ms": (time.perf_counter() - start) * 1e3,
    }
