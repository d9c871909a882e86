"""Kernel time of each distinct autotuning candidate for a few examples (GPU only).

    PYTHONPATH=. python3 bench/sweep_options.py [size/name ...]
    PYTHONPATH=. python3 bench/sweep_options.py --warps [size/name ...]
    PYTHONPATH=. python3 bench/sweep_options.py --try split_min_cols=4096,split_min_part=512 size/name ...

A case is an example ("size/name") or the path of a fusion script ("path/to/script.py").

For every kernel of each example: microseconds per candidate (`hfuse.runtime.autotune.CANDIDATES`,
on the synthetic arguments autotuning uses), the default heuristics first. With `--warps`, the
default kernel instead, launched with 2, 4, 8 and 16 warps (every suite example at the large and
nanoGPT sizes when none is named), as the evidence for the warp heuristics of the code generator.
With `--try`, the default options and each given change of them (fields of `hfuse.codegen.Options`).

Each time is two numbers: `do_bench` of the kernel module's `run()`, which launches through Triton's
Python launcher, so a kernel shorter than its launches' host work (tens of us for a split's two
launches) is timed by the host; and the device time of one `run()` (its kernels' durations from
torch.profiler, L2 flushed, as `hfuse bench` reports it), which decides for such kernels.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path

from hfuse.codegen import KernelSource, Options, generate
from hfuse.examples import get_example, list_examples
from hfuse.ir import Fusion, Value
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.runtime.autotune import CANDIDATES, synthetic_run
from hfuse.runtime.timing import kernel_ms
from hfuse.segment.model import Group
from hfuse.service.measure import device_us

DEFAULT_CASES = ("nanogpt/qkv_split", "large/transpose_cast", "large/rmsnorm", "large/attention_softmax")


def timed(candidate: KernelSource, values: list[Value]) -> str:
    """`do_bench` of the candidate's `run()` and its device time, in us."""
    run = synthetic_run(candidate, values)
    return f"{kernel_ms(run) * 1e3:8.1f} us  device {device_us(run):8.1f} us"


def changed(options: Options) -> str:
    default = Options()
    diff = {k: v for k, v in dataclasses.asdict(options).items() if getattr(default, k) != v}
    return ", ".join(f"{k}={v}" for k, v in diff.items()) or "default"


def kernels_of(case: str) -> Iterator[tuple[KernelSource, Group, Fusion, list[Value]]]:
    """Each kernel of a "size/name" example or a script's path, its group, the fusion it reads and its
    arguments."""
    if case.endswith(".py"):
        text = Path(case).read_text(encoding="utf-8")
    else:
        subset, name = case.split("/")
        text = get_example(name, subset).text
    fusion = load(text, device="meta").fusion
    compiled = compile_fusion(fusion, alias_outputs=False)
    for kernel in compiled.kernels:
        group = next(g for g in compiled.segmentation.groups if g.id == kernel.group_id)
        yield kernel, group, compiled.scheduled, [compiled.scheduled.value(n) for n in kernel.args]


def sweep(case: str) -> None:
    for kernel, group, fusion, values in kernels_of(case):
        seen: set[str] = set()
        for options in CANDIDATES:
            candidate = generate(group, fusion, options)
            if candidate.source in seen:
                continue
            seen.add(candidate.source)
            print(f"{case:<26} {kernel.name:<26} {changed(options):<22} {timed(candidate, values)}")


def sweep_warps(case: str) -> None:
    for kernel, group, fusion, values in kernels_of(case):
        times = []
        for warps in (2, 4, 8, 16):
            candidate = generate(group, fusion, Options(warps=warps))
            times.append(f"w{warps}: {timed(candidate, values)}")
        print(f"{case:<26} {kernel.name:<26} now w{kernel.num_warps:<3} {' | '.join(times)}")


def parse_options(text: str) -> Options:
    fields = {f.name: f.type for f in dataclasses.fields(Options)}
    changes = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        if key not in fields:
            raise SystemExit(f"--try: Options has no field {key!r}; fields: {', '.join(fields)}")
        changes[key] = int(value)
    return Options(**changes)


def sweep_tries(cases: list[str], tries: list[Options]) -> None:
    for case in cases:
        for kernel, group, fusion, values in kernels_of(case):
            seen: set[str] = set()
            for options in (Options(), *tries):
                candidate = generate(group, fusion, options)
                if candidate.source in seen:
                    continue
                seen.add(candidate.source)
                try:
                    times = timed(candidate, values)
                except Exception as err:  # a candidate past the GPU's resources (shared memory) fails alone
                    times = f"failed: {type(err).__name__}: {str(err)[:160]}"
                print(f"{case:<34} {kernel.name:<26} {changed(options):<44} {times}", flush=True)


def every_suite_case() -> list[str]:
    return [f"{subset}/{e.name}" for subset in ("large", "nanogpt") for e in list_examples(subset)]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--try"]:
        args, tries = sys.argv[1:], []
        while args[:1] == ["--try"]:
            tries.append(parse_options(args[1]))
            args = args[2:]
        sweep_tries(args, tries)
    elif sys.argv[1:2] == ["--warps"]:
        for case in sys.argv[2:] or every_suite_case():
            sweep_warps(case)
    else:
        for case in sys.argv[1:] or DEFAULT_CASES:
            sweep(case)
