"""The benchmark suite: hfuse against torch eager, torch.compile and a clone of the same bytes.

Protocol (BENCHMARKS.md): every candidate is checked against the reference, then all are timed
in one process, interleaved, with `triton.testing.do_bench(..., return_mode="median")` (which
flushes L2 before each call); the whole set is repeated and the median of the rounds is quoted.
Kernel counts come from torch.profiler for every candidate. End-to-end time (host work included)
and the first call in a fresh process, with a cold and a warm kernel cache, are reported beside.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from hfuse import settings
from hfuse.backends import EAGER, HFUSE
from hfuse.errors import HfuseError
from hfuse.service.measure import CLONE, COMPILE

# The example subsets each suite is timed at, by --sizes, and the cases whose first call is timed.
SUITE_SUBSETS = {
    "base": {"small": ("nanogpt",), "large": ("large",), "all": ("nanogpt", "large")},
    "extended": {
        "small": ("extended-decode",),
        "large": ("extended-large",),
        "all": ("extended-decode", "extended-large"),
    },
}
COMPILE_CASES = {
    "base": ("nanogpt/qkv_split", "large/layernorm", "large/cross_entropy"),
    "extended": (
        "extended-large/softmax_vocab", "extended-large/log_softmax_vocab", "extended-large/adam_step",
    ),
}  # fmt: skip
# The first call's target in host ms by subset (large sizes 1.5 s, small ones 0.5 s)
FIRST_CALL_TARGET_MS = {"nanogpt": 500, "large": 1500, "extended-decode": 500, "extended-large": 1500}


@dataclass(frozen=True, slots=True)
class Row:
    case: str
    size: str
    candidate: str
    kernels: int
    kernel_us: float
    e2e_us: float  # host wall time per call in a loop of calls, host work included
    device_us: float  # GPU time of one call's kernels (torch.profiler), host time left out
    bytes_moved: int
    gbs: float
    pct_clone: float
    pct_peak: float
    vs_compile: float  # torch.compile's kernel time / this one: above 1 is faster than torch.compile


@dataclass(frozen=True, slots=True)
class FirstCall:
    case: str
    cold_ms: float  # host time of the first fd.execute, with an empty HFUSE_CACHE_DIR and Triton cache
    cold_compile_ms: float  # the part compiling the fusion and its kernels
    warm_ms: float | None  # the same in a new process over the same caches (None: not timed)
    warm_compile_ms: float | None  # the part compiling the fusion and loading its kernels from the caches
    cold_stages_ms: dict[str, float]  # the cold call's stages: loading the script, then the first run's

    @property
    def target_ms(self) -> float | None:
        return FIRST_CALL_TARGET_MS.get(self.case.split("/")[0])


def measure_case(
    name: str, size: str, text: str, peak_gbs: float, *, combo: bool = True
) -> tuple[list[Row], tuple[str, ...]]:
    """The rows of every candidate, and the kernel counts that torch.profiler does not confirm."""
    from hfuse.baselines import baseline
    from hfuse.loader import load
    from hfuse.service.measure import compare_case

    script = load(text, device="cuda")
    found, disagreements = compare_case(script, alias_outputs=False, combo=combo, plain=baseline(name, size))
    by_name = {t.candidate: t for t in found}
    clone_us, compile_us = by_name[CLONE].kernel_us, by_name[COMPILE].kernel_us
    rows = [
        Row(
            case=name,
            size=size,
            candidate=t.candidate,
            kernels=t.kernels,
            kernel_us=round(t.kernel_us, 2),
            e2e_us=round(t.e2e_us, 2),
            device_us=round(t.device_us, 2),
            bytes_moved=t.nbytes,
            gbs=round(t.gbs or 0.0, 1),
            pct_clone=round(100.0 * clone_us / t.kernel_us, 1),
            pct_peak=round(100.0 * (t.gbs or 0.0) / peak_gbs, 1),
            vs_compile=round(compile_us / t.kernel_us, 3),
        )
        for t in found
    ]
    return rows, disagreements


def first_calls(cases: Sequence[str], *, warm: bool = True) -> list[FirstCall]:
    """Each case's first fd.execute in a new process with empty caches, the cases one after the other in
    that process (as new fusions in a running app); then (with `warm`) again in another new process
    over the caches the first one filled."""
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            settings.CACHE_DIR.env: f"{folder}/hfuse",
            "TRITON_CACHE_DIR": f"{folder}/triton",
        }
        cold = _first_calls_in_new_process(cases, env)
        again = _first_calls_in_new_process(cases, env) if warm else [None] * len(cases)
    return [
        FirstCall(
            case,
            round(c["host_ms"], 1),
            round(c["compile_ms"], 1),
            round(w["host_ms"], 1) if w else None,
            round(w["compile_ms"], 1) if w else None,
            {stage: round(ms, 1) for stage, ms in c["stages_ms"].items()},
        )
        for case, c, w in zip(cases, cold, again, strict=True)
    ]


def _first_calls_in_new_process(cases: Sequence[str], env: dict[str, str]) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "hfuse.tools.bench", "--first-call", ",".join(cases)],
        capture_output=True, text=True, env=env, timeout=60 + 20 * len(cases), check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise HfuseError(f"first calls of {', '.join(cases)} failed: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def nominal_peak_gbs() -> float:
    from hfuse.runtime.device import nominal_peak_bandwidth_gbs

    peak = nominal_peak_bandwidth_gbs()
    if peak is None:
        raise HfuseError("the GPU reports no memory clock and bus width: no nominal peak to compare with")
    return peak


def summary(rows: Sequence[Row]) -> list[str]:
    """Per case: hfuse against torch.compile and the clone, kernel and end-to-end time."""
    by_case: dict[tuple[str, str], dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault((r.size, r.case), {})[r.candidate] = r
    lines = [
        "| size | case | kernels hfuse / compile | hfuse us | compile us | x vs compile | % clone | "
        "device us hfuse / compile / clone | e2e hfuse us | e2e compile us | e2e eager us |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    ratios: dict[str, list[tuple[float, float]]] = {}  # size -> (kernel time, device time) ratios
    for (size, case), found in sorted(by_case.items()):
        h, c, e, k = found[HFUSE], found[COMPILE], found[EAGER], found[CLONE]
        ratios.setdefault(size, []).append((h.vs_compile, c.device_us / h.device_us))
        lines.append(
            f"| {size} | {case} | {h.kernels} / {c.kernels} | {h.kernel_us:.1f} | {c.kernel_us:.1f} | "
            f"{h.vs_compile:.2f} | {h.pct_clone:.0f} | "
            f"{h.device_us:.1f} / {c.device_us:.1f} / {k.device_us:.1f} | "
            f"{h.e2e_us:.1f} | {c.e2e_us:.1f} | {e.e2e_us:.1f} |"
        )
    # Kernel time holds each call's host work where it is not hidden behind the kernels (torch.compile's
    # guards, for short kernels), which moves from run to run; device time is the kernels' alone.
    for size, pairs in sorted(ratios.items()):
        kernel, device = (geometric_mean([pair[n] for pair in pairs]) for n in (0, 1))
        lines.append(
            f"\nGeometric mean of torch.compile time / hfuse time, {size}: {kernel:.3f} "
            f"(device time: {device:.3f})"
        )
    return lines


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def to_markdown(
    header: str, rows: Sequence[Row], firsts: Sequence[FirstCall], failures: Sequence[str]
) -> str:
    from hfuse.service.measure import PLAIN_DESCRIPTIONS

    described = [f"- {name}: {text}" for name, text in PLAIN_DESCRIPTIONS.items()]
    lines = [header, "", *described, "", "### Summary", "", *summary(rows), "", "### Every candidate", ""]
    lines += [
        "| size | case | candidate | kernels | kernel us | device us | e2e us | GB/s | % clone | % peak | "
        "x vs compile |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r.size} | {r.case} | {r.candidate} | {r.kernels} | {r.kernel_us:.1f} | {r.device_us:.1f} | "
            f"{r.e2e_us:.1f} | "
            f"{r.gbs:.0f} | {r.pct_clone:.0f} | {r.pct_peak:.0f} | {r.vs_compile:.2f} |"
        )
    if firsts:
        lines += [
            "",
            "### First fd.execute in a new process: host ms (of which compile or cache load)",
            "",
            "| case | cold caches | target | warm caches |",
            "| --- | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {f.case} | {f.cold_ms:.0f} ({f.cold_compile_ms:.0f}) | {_verdict(f)} | "
            + (f"{f.warm_ms:.1f} ({f.warm_compile_ms:.1f}) |" if f.warm_ms is not None else "not timed |")
            for f in firsts
        ]
        stages = list(dict.fromkeys(stage for f in firsts for stage in f.cold_stages_ms))
        lines += [
            "",
            "### Where the cold first call goes (ms)",
            "",
            "| case | " + " | ".join(stages) + " |",
            "| --- |" + " ---: |" * len(stages),
        ]
        lines += [
            f"| {f.case} | " + " | ".join(f"{f.cold_stages_ms.get(s, 0.0):.1f}" for s in stages) + " |"
            for f in firsts
        ]
    lines += [""] + [f"FAILED {failure}" for failure in failures]
    return "\n".join(lines) + "\n"


def _verdict(first: FirstCall) -> str:
    target = first.target_ms
    if target is None:
        return "-"
    return f"<= {target}: {'met' if first.cold_ms <= target else 'missed'}"


def _progress(done: int, total: int, label: str) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label:<40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _header(peak: float) -> str:
    import triton

    from hfuse.service.measure import ROUNDS

    return (
        f"## {datetime.date.today().isoformat()}, {torch.cuda.get_device_name()}, "
        f"driver {_driver_version()}, "
        f"torch {torch.__version__}, Triton {triton.__version__}; nominal peak {peak:.0f} GB/s; "
        f"medians of {ROUNDS} interleaved rounds"
    )


def _write(out: Path, suite: str, label: str, header: str, rows, firsts, failures) -> None:
    out.mkdir(parents=True, exist_ok=True)
    slug = f"{datetime.date.today().isoformat()}-{torch.cuda.get_device_name().replace(' ', '-')}"
    slug += "".join(f"-{part}" for part in (suite if suite != "base" else "", label) if part)
    (out / f"{slug}.md").write_text(to_markdown(header, rows, firsts, failures))
    record = {
        "header": header,
        "rows": [asdict(r) for r in rows],
        "first_calls": [asdict(f) for f in firsts],
        "failures": list(failures),
    }
    (out / f"{slug}.json").write_text(json.dumps(record, indent=1))


def main(argv: Sequence[str] | None = None) -> int:
    from hfuse.examples import list_examples

    parser = argparse.ArgumentParser(prog="hfuse bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="run only this case (repeatable)")
    parser.add_argument(
        "--suite", choices=list(SUITE_SUBSETS), default="base",
        help="base: the nanogpt and large examples; extended: the extended-decode and extended-large ones",
    )  # fmt: skip
    parser.add_argument(
        "--sizes", choices=["small", "large", "all"], default="all",
        help="small: nanogpt (extended-decode with --suite extended); large: large (extended-large)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--label", default="", help="added to the result files' names")
    parser.add_argument(
        "--compile-cases", nargs="*", default=None, metavar="SUBSET/NAME",
        help="cases whose first call is timed in new processes (default: three of the suite's; "
        "'all': every case of the suite at --sizes)",
    )  # fmt: skip
    parser.add_argument(
        "--cold-only", action="store_true", help="time first calls with empty caches only (no warm rerun)"
    )
    parser.add_argument(
        "--no-combo", action="store_true", help="leave out torch.compile with combo_kernels=True"
    )
    parser.add_argument(
        "--first-calls-only", action="store_true", help="time only the first calls of --compile-cases"
    )
    parser.add_argument("--first-call", metavar="SIZE/NAME,...", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("hfuse bench needs a CUDA GPU: none is visible", file=sys.stderr)
        return 2
    if args.first_call:
        from hfuse.tools.bench.first_call import first_calls as first_calls_here

        print(json.dumps(first_calls_here(args.first_call.split(","))))
        return 0
    cases = [(subset, ex) for subset in SUITE_SUBSETS[args.suite][args.sizes] for ex in list_examples(subset)]
    if args.first_calls_only:
        cases = []
    if args.only:
        cases = [(s, ex) for s, ex in cases if ex.name in args.only]
    from hfuse.service.measure import warm_up_gpu

    peak = nominal_peak_gbs()
    header = _header(peak)
    warm_up_gpu()
    rows: list[Row] = []
    failures: list[str] = []
    for index, (subset, example) in enumerate(cases):
        _progress(index, len(cases), f"{example.name} ({subset})")
        try:
            case_rows, disagreements = measure_case(
                example.name, subset, example.text, peak, combo=not args.no_combo
            )
            rows.extend(case_rows)
            failures.extend(f"{example.name} ({subset}): {d}" for d in disagreements)
        except Exception as err:  # a failing case is reported and the others still run
            failures.append(f"{example.name} ({subset}): {type(err).__name__}: {str(err)[:500]}")
        _write(args.out, args.suite, args.label, header, rows, [], failures)
        torch.cuda.empty_cache()
    _progress(len(cases), len(cases), "done")
    firsts = []
    compile_cases = COMPILE_CASES[args.suite] if args.compile_cases is None else args.compile_cases
    if compile_cases == ["all"]:
        subsets = SUITE_SUBSETS[args.suite][args.sizes]
        compile_cases = [f"{subset}/{ex.name}" for subset in subsets for ex in list_examples(subset)]
    if compile_cases:
        print(f"timing the first calls of {len(compile_cases)} cases in new processes", file=sys.stderr)
        try:
            firsts = first_calls(compile_cases, warm=not args.cold_only)
        except (HfuseError, subprocess.TimeoutExpired) as err:
            failures.append(f"first calls: {err}")
    _write(args.out, args.suite, args.label, header, rows, firsts, failures)
    print(to_markdown(header, rows, firsts, failures))
    return 1 if failures else 0


def _driver_version() -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"
