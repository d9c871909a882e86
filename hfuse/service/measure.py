"""The measuring protocol of BENCHMARKS.md, shared by the app's comparison and `hfuse bench`.

A case's candidates (hfuse, torch eager, torch.compile and a clone of the same bytes, the practical
ceiling) are checked against the torch reference, then timed side by side in one process: kernel
counts from torch.profiler, then ROUNDS interleaved rounds of kernel time (`triton.testing.do_bench`,
L2 flushed before each call, median), host time per call over back-to-back calls, and device time
(the call's kernel durations added, from torch.profiler). Every candidate returns the fusion's outputs
in the layout hfuse gives them under the same output contract: views where hfuse returns views,
hfuse's strides where it writes copies, so all move the same bytes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from hfuse.backends import EAGER, HFUSE
from hfuse.errors import HfuseError

ROUNDS = 3
WARMUP_MS = 10
REP_MS = 50
LOOP_MS = 20  # host time of one end-to-end loop
WARM_UP_S = 0.5  # of copies before a case is timed: no candidate is timed on idle clocks

Fn = Callable[[], object]

COMPILE, COMBO, CLONE = "torch.compile", "combo", "clone"  # the baselines beside the backends
DESCRIPTIONS = {
    EAGER: "torch eager: the fusion's ops one by one, as hfuse's reference runs them",
    COMPILE: "torch.compile (Inductor, dynamic=False) of hfuse's op-by-op reference of the fusion",
    COMBO: "torch.compile as above, with combo_kernels=True (independent kernels in one launch)",
    CLONE: "torch.clone of a buffer of the bytes the fusion must move: the practical ceiling",
}
# The eager and torch.compile baselines of a case that comes with its plain torch function
PLAIN_DESCRIPTIONS = {
    **DESCRIPTIONS,
    EAGER: "torch eager: the example's plain torch function (hfuse.baselines)",
    COMPILE: "torch.compile (Inductor, dynamic=False) of the example's plain torch function",
}


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    fn: Fn
    own_kernels: int | None = None  # kernels the candidate says it launches (hfuse's plan)


@dataclass(frozen=True, slots=True)
class Timing:
    """One candidate of a case, measured: what the app's comparison and the benchmark's rows show."""

    candidate: str
    kernels: int  # CUDA kernels one call launches, as torch.profiler sees them
    kernel_us: float  # median over the rounds of do_bench's median (L2 flushed before each call)
    rounds_us: tuple[float, ...]  # each round's median: their spread says how noisy the figure is
    device_us: float  # the call's kernel durations added (torch.profiler), median over calls
    e2e_us: float  # host wall time per call over back-to-back calls: what a caller's loop costs
    nbytes: int  # the bytes the fusion must move (inputs read and outputs written, once)

    @property
    def gbs(self) -> float | None:
        return self.nbytes / self.kernel_us / 1e3 if self.nbytes and self.kernel_us > 0 else None


@dataclass(frozen=True, slots=True)
class CaseTimes:
    kernels: dict[str, int]
    kernel_us: dict[str, float]  # median of the rounds' do_bench medians
    kernel_rounds_us: dict[str, tuple[float, ...]]  # each round's do_bench median, for the spread
    e2e_us: dict[str, float]  # median of the rounds' loop means: host time per call, back to back
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


def saved_in_place_inputs(fusion: Any, inputs: Sequence[object]) -> dict[int, torch.Tensor]:
    """Copies of the inputs that outputs added with `alias_input` overwrite, by position."""
    positions = {name: i for i, name in enumerate(fusion.inputs)}
    targets = {positions[out.alias_input] for out in fusion.outputs if out.alias_input is not None}
    return {i: inputs[i].clone() for i in sorted(targets)}


def restore(inputs: Sequence[object], saved: dict[int, torch.Tensor]) -> None:
    """Puts back the inputs that calls wrote into, so that the next call starts where the first did."""
    for i, value in saved.items():
        inputs[i].copy_(value)


def every_output(
    fusion: Any, inputs: Sequence[object], returned: Sequence[torch.Tensor]
) -> list[torch.Tensor]:
    """All of the fusion's outputs in order after a call that returned `returned`: an output added with
    `alias_input` is not returned but written into that input, so it is read from there."""
    positions = {name: i for i, name in enumerate(fusion.inputs)}
    rest = iter(returned)
    return [
        inputs[positions[out.alias_input]] if out.alias_input is not None else next(rest)
        for out in fusion.outputs
    ]


def baseline_function(
    fusion: Any, hfuse_outputs: Sequence[torch.Tensor], plain: Callable[..., list[torch.Tensor]] | None
) -> Callable[..., list[torch.Tensor]]:
    """What the eager baseline runs and torch.compile compiles: `plain`, the case's plain torch function,
    when given, else hfuse's op-by-op reference of the fusion; its outputs under hfuse's output contract
    (those written into inputs left out, the others in the strides of `hfuse_outputs`)."""
    from hfuse.reference import evaluate

    returned = [out.alias_input is None for out in fusion.outputs]
    computes = plain if plain is not None else (lambda *xs: evaluate(fusion, list(xs)))

    def baseline(*xs: torch.Tensor) -> list[torch.Tensor]:
        outputs = [t for t, kept in zip(computes(*xs), returned, strict=True) if kept]
        return in_layout(outputs, hfuse_outputs)

    return baseline


def candidates(
    script: Any,
    hfuse_outputs: Sequence[torch.Tensor],
    nbytes: int,
    plan_kernels: int,
    *,
    backend: str = HFUSE,
    alias_outputs: bool = False,
    combo: bool = False,
    plain: Callable[..., list[torch.Tensor]] | None = None,
) -> list[Candidate]:
    """hfuse (`script.fd.execute` with this backend and output contract), eager, torch.compile (and, with
    `combo`, torch.compile with combo kernels) of `baseline_function`, and, when bytes move, a clone of
    `nbytes` bytes."""
    fd, inputs = script.fd, script.inputs
    reference = baseline_function(script.fusion, hfuse_outputs, plain)
    found = [
        Candidate(
            backend, lambda: fd.execute(inputs, alias_outputs=alias_outputs, backend=backend), plan_kernels
        ),
        Candidate(EAGER, lambda: reference(*inputs)),
    ]
    compiled = torch.compile(reference, dynamic=False)
    found.append(Candidate(COMPILE, lambda: compiled(*inputs)))
    if combo:
        with torch._inductor.config.patch(combo_kernels=True):
            compiled_combo = torch.compile(reference, dynamic=False)
            compiled_combo(*inputs)  # compiles under the patched config
        found.append(Candidate(COMBO, lambda: compiled_combo(*inputs)))
    if nbytes:
        clone_source = torch.empty(max(nbytes // 2, 1), dtype=torch.uint8, device="cuda")
        found.append(Candidate(CLONE, clone_source.clone))
    return found


def check(
    candidate: Candidate, script: Any, expected: Sequence[torch.Tensor], dtypes, reduction_sizes
) -> None:
    """One call of the candidate against `expected`: every output of the fusion (in-place ones read
    from the inputs they were written into)."""
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


def measure(
    cands: Sequence[Candidate], nbytes: int, progress: Callable[[str], None] | None = None
) -> CaseTimes:
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
    for round_index in range(ROUNDS):
        if progress is not None:
            progress(f"timing round {round_index + 1} of {ROUNDS}")
        for c in cands:
            us = kernel_us(c.fn)
            kernel_rounds[c.name].append(us)
            calls = max(5, min(1000, int(LOOP_MS * 1e3 / max(us, 5.0))))
            loop_rounds[c.name].append(loop_us(c.fn, calls))
            device_rounds[c.name].append(device_us(c.fn))
    return CaseTimes(
        kernels,
        {k: statistics.median(v) for k, v in kernel_rounds.items()},
        {k: tuple(v) for k, v in kernel_rounds.items()},
        {k: statistics.median(v) for k, v in loop_rounds.items()},
        {k: statistics.median(v) for k, v in device_rounds.items()},
        nbytes,
        disagreements,
    )


def timings(times: CaseTimes) -> list[Timing]:
    return [
        Timing(
            name,
            times.kernels[name],
            times.kernel_us[name],
            times.kernel_rounds_us[name],
            times.device_us[name],
            times.e2e_us[name],
            times.nbytes,
        )
        for name in times.kernel_us
    ]


def compare_case(
    script: Any,
    *,
    backend: str = HFUSE,
    alias_outputs: bool = False,
    combo: bool = False,
    plain: Callable[..., list[torch.Tensor]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Timing], tuple[str, ...]]:
    """The case's candidates under one output contract, each checked against the torch reference and
    then measured side by side; and the kernel counts that torch.profiler does not confirm. `plain`, the
    case's plain torch function, is what eager and torch.compile run when given (`candidates`)."""
    from hfuse.reference import evaluate
    from hfuse.tolerance import reduction_size

    tell = progress or (lambda step: None)
    torch._dynamo.reset()  # a fresh torch.compile cache per case: no recompile limit across cases
    warm_up_gpu(WARM_UP_S)
    fusion, inputs = script.fusion, script.inputs
    saved = saved_in_place_inputs(fusion, inputs)  # every check starts from the same values
    hfuse_outputs = script.fd.execute(inputs, alias_outputs=alias_outputs, backend=backend, profile=True)
    profile = script.fd.profile()
    nbytes = profile.input_bytes + profile.output_bytes
    restore(inputs, saved)
    # every output; the in-place ones are the copies' tensors, which no later call writes into
    expected = evaluate(fusion, [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
    dtypes = [fusion.value(out.name).dtype for out in fusion.outputs]
    sizes = [reduction_size(fusion, out.name) for out in fusion.outputs]
    tell("compiling torch.compile's baseline")
    cands = candidates(
        script, hfuse_outputs, nbytes, profile.segments, backend=backend, alias_outputs=alias_outputs,
        combo=combo, plain=plain,
    )  # fmt: skip
    for candidate in cands:
        if candidate.name == CLONE:
            continue
        tell(f"checking {candidate.name} against the torch reference")
        restore(inputs, saved)
        check(candidate, script, expected, dtypes, sizes)
    times = measure(cands, nbytes, progress=tell)
    return timings(times), times.disagreements
