"""The benchmark suite: hfuse against torch eager, torch.compile and a clone of the same bytes.

Protocol (BENCHMARKS.md): every candidate is checked against the reference, then all are timed
in one process, interleaved, with `triton.testing.do_bench(..., return_mode="median")` (which
flushes L2 before each call); the whole set is repeated and the median of the rounds is quoted.
Kernel counts come from torch.profiler for every candidate.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from hfuse.errors import HfuseError

ROUNDS = 3
WARMUP_MS = 25
REP_MS = 100


@dataclass(frozen=True, slots=True)
class Measurement:
    case: str
    size: str
    candidate: str
    kernels: int
    median_us: float
    bytes_moved: int
    gbs: float
    pct_clone: float
    pct_peak: float
    vs_inductor: float | None  # inductor time / this time: above 1 is faster than torch.compile


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    fn: Callable[[], object]


def _cuda_kernel_count(fn: Callable[[], object]) -> int:
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kernel_events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sum(1 for e in kernel_events if "memcpy" not in e.name.lower() and "memset" not in e.name.lower())


def _as_list(out: object) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out]
    return [t for t in out if isinstance(t, torch.Tensor)]


def _candidates(script, fusion, nbytes: int) -> list[Candidate]:
    from hfuse.reference import evaluate

    inputs = script.inputs

    def eager():
        return evaluate(fusion, inputs)

    compiled = torch.compile(lambda *xs: evaluate(fusion, list(xs)), dynamic=False)
    with torch._inductor.config.patch(combo_kernels=True):
        compiled_combo = torch.compile(lambda *xs: evaluate(fusion, list(xs)), dynamic=False)
        compiled_combo(*inputs)  # compile under the patched config
    clone_src = torch.empty(max(nbytes // 2, 1), dtype=torch.uint8, device="cuda")

    return [
        Candidate("eager", eager),
        Candidate("inductor", lambda: compiled(*inputs)),
        Candidate("inductor_combo", lambda: compiled_combo(*inputs)),
        Candidate("hfuse", lambda: script.fd.execute(inputs, alias_outputs=False)),
        Candidate("clone", lambda: clone_src.clone()),
    ]


def _check(candidate: Candidate, expected: Sequence[torch.Tensor], fusion) -> None:
    from hfuse.tolerance import compare

    actual = _as_list(candidate.fn())
    for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
        dtype = fusion.value(fusion.outputs[index].name).dtype
        result = compare(a, e, dtype)
        if not result.ok:
            raise HfuseError(f"{candidate.name}: output {index} disagrees with the reference: {result.message}")


def measure_case(name: str, size: str, text: str, peak_gbs: float) -> list[Measurement]:
    import triton.testing

    from hfuse.loader import load
    from hfuse.reference import evaluate

    script = load(text, device="cuda")
    fusion = script.fusion
    script.fd.execute(script.inputs, alias_outputs=False, profile=True)
    profile = script.fd.profile()
    nbytes = profile.input_bytes + profile.output_bytes
    expected = evaluate(fusion, script.inputs)
    candidates = _candidates(script, fusion, nbytes)
    for c in candidates:
        if c.name != "clone":
            _check(c, expected, fusion)
    kernels = {c.name: _cuda_kernel_count(c.fn) for c in candidates}
    times: dict[str, list[float]] = {c.name: [] for c in candidates}
    for _ in range(ROUNDS):
        for c in candidates:
            ms = triton.testing.do_bench(c.fn, warmup=WARMUP_MS, rep=REP_MS, return_mode="median")
            times[c.name].append(ms * 1000.0)
    medians = {k: statistics.median(v) for k, v in times.items()}
    clone_gbs = nbytes / (medians["clone"] * 1e-6) / 1e9
    rows = []
    for c in candidates:
        us = medians[c.name]
        gbs = nbytes / (us * 1e-6) / 1e9
        rows.append(
            Measurement(
                case=name,
                size=size,
                candidate=c.name,
                kernels=kernels[c.name],
                median_us=round(us, 2),
                bytes_moved=nbytes,
                gbs=round(gbs, 1),
                pct_clone=round(100.0 * gbs / clone_gbs, 1),
                pct_peak=round(100.0 * gbs / peak_gbs, 1),
                vs_inductor=round(medians["inductor"] / us, 3),
            )
        )
    return rows


def nominal_peak_gbs() -> float:
    props = torch.cuda.get_device_properties(0)
    clock_khz = getattr(props, "memory_clock_rate", 0)
    bus_bits = getattr(props, "memory_bus_width", 0)
    if clock_khz and bus_bits:
        return 2 * clock_khz * 1e3 * (bus_bits / 8) / 1e9
    return 4814.0  # H200 datasheet figure, used when the driver does not report clock and bus width


def to_markdown(rows: Sequence[Measurement], header: str) -> str:
    lines = [
        header,
        "",
        "| case | size | candidate | kernels | median us | GB/s | % clone | % peak | x vs torch.compile |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r.case} | {r.size} | {r.candidate} | {r.kernels} | {r.median_us:.1f} | {r.gbs:.0f} | "
            f"{r.pct_clone:.0f} | {r.pct_peak:.0f} | {r.vs_inductor:.2f} |"
        )
    return "\n".join(lines) + "\n"


def _progress(done: int, total: int, label: str) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label:<40}")
    sys.stderr.flush()
    if done == total:
        sys.stderr.write("\n")


def main(argv: Sequence[str] | None = None) -> int:
    from hfuse.examples import list_examples

    parser = argparse.ArgumentParser(prog="hfuse bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="run only this case (repeatable)")
    parser.add_argument("--sizes", choices=["small", "large", "all"], default="all")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("hfuse bench needs a CUDA GPU: none is visible", file=sys.stderr)
        return 2
    subsets = {"small": ["nanogpt"], "large": ["large"], "all": ["nanogpt", "large"]}[args.sizes]
    cases = [(subset, ex) for subset in subsets for ex in list_examples(subset)]
    if args.only:
        cases = [(s, ex) for s, ex in cases if ex.name in args.only]
    peak = nominal_peak_gbs()
    rows: list[Measurement] = []
    failures: list[str] = []
    for index, (subset, example) in enumerate(cases):
        _progress(index, len(cases), f"{example.name} ({subset})")
        try:
            rows.extend(measure_case(example.name, subset, example.text, peak))
        except (HfuseError, RuntimeError) as err:
            failures.append(f"{example.name} ({subset}): {err}")
        torch.cuda.empty_cache()
    _progress(len(cases), len(cases), "done")
    props = torch.cuda.get_device_properties(0)
    import triton

    stamp = datetime.date.today().isoformat()
    header = (
        f"## {stamp}, {props.name}, driver {torch.version.cuda and _driver_version()}, torch {torch.__version__}, "
        f"Triton {triton.__version__}; nominal peak {peak:.0f} GB/s"
    )
    markdown = to_markdown(rows, header)
    print(markdown)
    for failure in failures:
        print(f"FAILED {failure}")
    args.out.mkdir(parents=True, exist_ok=True)
    slug = f"{stamp}-{props.name.replace(' ', '-')}"
    (args.out / f"{slug}.md").write_text(markdown + "".join(f"\nFAILED {f}\n" for f in failures))
    (args.out / f"{slug}.json").write_text(
        json.dumps({"header": header, "rows": [asdict(r) for r in rows], "failures": failures}, indent=1)
    )
    return 1 if failures else 0


def _driver_version() -> str:
    import subprocess

    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False,
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
