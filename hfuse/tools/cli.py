"""The `hfuse` command line: print a definition's IR, run it and read its kernel list, write an HTML
report of it, list the gallery, hand `hfuse bench` to the benchmark.

Every HfuseError ends the command with its message on stderr and exit code 2, without a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hfuse.backends import BACKENDS, EAGER, HFUSE, STRATEGIES
from hfuse.errors import HfuseError
from hfuse.examples import SUBSETS
from hfuse.ir import Fusion
from hfuse.runtime.profile_model import FusionProfile
from hfuse.tolerance import Comparison, compare_outputs
from hfuse.tools.report import RunSummary, compile_strategies, kernel_row, report_html

if TYPE_CHECKING:
    from hfuse.loader import Script

EXIT_USER_ERROR = 2
INTERPRETER_BANNER = "times are not meaningful in Triton's interpreter (no GPU): kernels ran for correctness"
KERNEL_COLUMNS = (
    *("#", "kernel", "scheduler", "grid", "warps"),
    *("time us", "input MB", "output MB", "GB/s", "% peak"),
)


def read_script(path: str) -> str:
    """The text of a script file; `-` reads standard input."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as err:
        reason = err.strerror or str(err)
        raise HfuseError(f"cannot read {path}: {reason}; give the path of a definition script") from None
    except UnicodeDecodeError:
        raise HfuseError(f"{path} is not UTF-8 text; give the path of a definition script") from None


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


# ---------------------------------------------------------------------------------------------- tables


def _cell(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _mb(nbytes: int) -> float:
    return nbytes / 1e6


def _align(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        pairs = enumerate(zip(row, widths, strict=True))
        cells = [cell.ljust(w) if i in (1, 2) else cell.rjust(w) for i, (cell, w) in pairs]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def format_kernel_table(profile: FusionProfile) -> str:
    rows = [list(KERNEL_COLUMNS)]
    for index, kernel in enumerate(profile.segment_profiles):
        row = kernel_row(index, kernel)
        grid = "x".join(str(g) for g in kernel.grid) if kernel.launches_kernel else "-"
        warps = str(kernel.num_warps) if kernel.launches_kernel else "-"
        name = kernel.name if kernel.launches < 2 else f"{kernel.name} ({kernel.launches} launches)"
        rows.append(
            [
                str(index),
                name,
                kernel.scheduler,
                grid,
                warps,
                _cell(row["time_us"], 1),
                _cell(_mb(kernel.input_bytes), 3),
                _cell(_mb(kernel.output_bytes), 3),
                _cell(kernel.effective_bandwidth_gbs, 0),
                _cell(kernel.percentage_peak_bandwidth, 1),
            ]
        )
    time_us = None if profile.kernel_time_ms is None else profile.kernel_time_ms * 1e3
    rows.append(
        [
            "",
            f"total: {profile.segments} kernel launch{'es' if profile.segments != 1 else ''}",
            "",
            "",
            "",
            _cell(time_us, 1),
            _cell(_mb(profile.input_bytes), 3),
            _cell(_mb(profile.output_bytes), 3),
            _cell(profile.effective_bandwidth_gbs, 0),
            _cell(profile.percentage_peak_bandwidth, 1),
        ]
    )
    lines = [f"backend {profile.backend} on {profile.device}", _align(rows)]
    lines.append(
        f"host time {profile.host_time_ms:.2f} ms, compile time {profile.compile_time_ms:.2f} ms"
        + (f", peak {profile.peak_bandwidth_gbs:.0f} GB/s" if profile.peak_bandwidth_gbs else "")
    )
    if not profile.times_meaningful:
        lines.append(INTERPRETER_BANNER)
    return "\n".join(lines)


def format_eager_table(device: str) -> str:
    return (
        f"backend eager on {device}: the reference ran the fusion op by op with torch; "
        "no kernels were generated, so there is no kernel list"
    )


def output_row(index: int, tensor: Any) -> dict[str, Any]:
    if not hasattr(tensor, "shape"):
        return {"index": index, "shape": [], "dtype": type(tensor).__name__, "strides": []}
    return {
        "index": index,
        "shape": list(tensor.shape),
        "dtype": str(tensor.dtype).removeprefix("torch."),
        "strides": list(tensor.stride()),
    }


def format_outputs(outputs: Sequence[Any]) -> str:
    rows = [["output", "shape", "dtype", "strides"]]
    for index, tensor in enumerate(outputs):
        row = output_row(index, tensor)
        rows.append([str(index), str(row["shape"]), row["dtype"], str(row["strides"])])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


# ---------------------------------------------------------------------------------------------- commands


def cmd_ir(args: argparse.Namespace) -> int:
    text = read_script(args.file)
    from hfuse.loader import load
    from hfuse.printer import print_fusion

    script = load(text, device="meta")  # the IR needs shapes, not data: nothing is allocated
    print(print_fusion(script.fusion))
    return 0


def cmd_segments(args: argparse.Namespace) -> int:
    text = read_script(args.file)
    from hfuse.loader import load
    from hfuse.pipeline import compile_fusion
    from hfuse.segment.report import format_segmentation

    script = load(text, device="meta")
    compiled = compile_fusion(script.fusion, strategy=args.strategy, alias_outputs=not args.no_alias)
    print(format_segmentation(compiled.scheduled, compiled.segmentation, compiled.launches))
    if args.code:
        for kernel in compiled.kernels:
            print(f"\n# ---- {kernel.name} (segment {kernel.group_id}, grid {kernel.grid}) ----")
            print(kernel.source)
    return 0


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """A script loaded on the chosen device and run once with the command's options."""

    script: Script
    device: str
    outputs: list[Any]
    profile: FusionProfile | None
    comparison: Comparison


def run_script(args: argparse.Namespace) -> ScriptRun:
    import torch

    text = read_script(args.file)
    from hfuse.loader import load

    device = args.device or default_device()
    if device == "cuda" and not torch.cuda.is_available():
        raise HfuseError(
            "--device cuda: no CUDA GPU is visible; use --device cpu to run in Triton's interpreter"
        )
    script = load(text, device=device)
    expected = _reference(script.fusion, script.inputs)  # before the run, which may write into its inputs
    outputs = list(
        script.fd.execute(script.inputs, backend=args.backend, alias_outputs=not args.no_alias, profile=True)
    )
    profile = script.fd.profile() if args.backend != EAGER else None
    comparison = _compare_outputs(script.fusion, outputs, expected)
    return ScriptRun(script, device, outputs, profile, comparison)


def cmd_run(args: argparse.Namespace) -> int:
    import torch

    done = run_script(args)
    if args.save:
        torch.save(
            {
                "inputs": [
                    t.detach().cpu() if isinstance(t, torch.Tensor) else t for t in done.script.inputs
                ],
                "outputs": [t.detach().cpu() for t in done.outputs],
            },
            args.save,
        )
    if args.json:
        report = _run_report(args.backend, done.device, done.profile, done.comparison, done.outputs)
        print(json.dumps({**report, "note": done.script.note} if done.script.note else report))
    else:
        if done.script.note:
            print(f"note: {done.script.note}\n")
        print(format_kernel_table(done.profile) if done.profile else format_eager_table(done.device))
        print()
        print(format_outputs(done.outputs))
        print(_validation_line(done.comparison))
        if args.save:
            print(f"saved inputs and outputs to {args.save}")
    return 0 if done.comparison.ok else 1


def _reference(fusion: Fusion, inputs: Sequence[Any]) -> list[Any]:
    from hfuse.reference import evaluate

    return evaluate(fusion, inputs, write_aliases=False)


def _compare_outputs(fusion: Fusion, outputs: Sequence[Any], expected: Sequence[Any]) -> Comparison:
    from hfuse.tolerance import reduction_size

    returned = [i for i, out in enumerate(fusion.outputs) if out.alias_input is None]  # as execute returns
    sizes = [reduction_size(fusion, fusion.outputs[i].name) for i in returned]
    return compare_outputs(outputs, [expected[i] for i in returned], sizes)


def _validation_line(comparison: Comparison) -> str:
    if not comparison.ok:
        return f"validation: DOES NOT match the torch reference: {comparison.message}"
    return f"validation: matches the torch reference (max abs error {comparison.max_abs_error:.3g})"


def _run_report(
    backend: str, device: str, profile: FusionProfile | None, comparison: Comparison, outputs: Sequence[Any]
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "backend": backend,
        "device": device,
        "validated": bool(comparison.ok),
        "max_abs_error": comparison.max_abs_error,
        "outputs": [output_row(i, t) for i, t in enumerate(outputs)],
        "kernels": [],
    }
    if profile is not None:
        report |= {
            "kernels": [kernel_row(i, k) for i, k in enumerate(profile.segment_profiles)],
            "segments": profile.segments,
            "kernel_time_ms": profile.kernel_time_ms,
            "host_time_ms": profile.host_time_ms,
            "compile_time_ms": profile.compile_time_ms,
            "input_bytes": profile.input_bytes,
            "output_bytes": profile.output_bytes,
            "effective_bandwidth_gbs": profile.effective_bandwidth_gbs,
            "percentage_peak_bandwidth": profile.percentage_peak_bandwidth,
            "times_meaningful": profile.times_meaningful,
        }
    return report


def cmd_report(args: argparse.Namespace) -> int:
    if args.no_run:
        from hfuse.loader import load

        script, run = load(read_script(args.file), device="meta"), None
    else:
        done = run_script(args)
        script = done.script
        timings = _measured_beside_torch(args, done) if args.compare else ()
        run = RunSummary(
            args.backend, done.device, done.profile, done.comparison.ok, done.comparison.message, timings
        )
    compiled = compile_strategies(script, alias_outputs=not args.no_alias)
    irs = None
    if args.triton_irs:
        from hfuse.tools.triton_ir import TARGET, triton_irs

        kernels = sum(len(c.kernels) for c in compiled.values())
        print(f"compiling {kernels} kernels with Triton for {TARGET}...", flush=True)
        irs = dict(zip(compiled, triton_irs(list(compiled.values())), strict=True))
    page = report_html(script, compiled, alias_outputs=not args.no_alias, run=run, irs=irs)
    try:
        Path(args.output).write_text(page, encoding="utf-8")
    except OSError as err:
        raise HfuseError(f"cannot write {args.output}: {err.strerror or err}") from None
    print(f"wrote {args.output} ({len(page.encode()) / 1e3:.0f} kB)")
    return 0 if run is None or run.ok else 1


def _measured_beside_torch(args: argparse.Namespace, done: ScriptRun) -> tuple[Any, ...]:
    if done.device != "cuda":
        raise HfuseError("--compare measures beside torch on a GPU; Triton's interpreter times nothing")
    from hfuse.service.measure import compare_case

    print("measuring beside torch eager, torch.compile and a clone...", flush=True)
    timings, _ = compare_case(done.script, backend=args.backend, alias_outputs=not args.no_alias)
    return tuple(timings)


def cmd_bench_script(args: argparse.Namespace) -> int:
    from hfuse.loader import load
    from hfuse.pipeline import compile_fusion
    from hfuse.tools.bench_script import bench_script

    script = load(read_script(args.file), device="meta")
    compiled = compile_fusion(script.fusion, strategy=args.strategy, alias_outputs=not args.no_alias)
    text = bench_script(script, compiled)
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as err:
        raise HfuseError(f"cannot write {args.output}: {err.strerror or err}") from None
    print(f"wrote {args.output}: python {args.output} [--device cuda|cpu] times its kernels beside torch")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    from hfuse.examples import list_examples

    examples = list_examples(args.subset)
    width = max(len(e.name) for e in examples)
    for example in examples:
        print(f"{example.name.ljust(width)}  {example.title}: {example.description}")
    print(f"\n{len(examples)} {args.subset} examples in {examples[0].path.parent}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hfuse", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ir = commands.add_parser("ir", help="print the normalized fusion definition of a script")
    ir.add_argument("file", help="a fusion definition script (- for standard input)")
    ir.set_defaults(handler=cmd_ir)

    segments = commands.add_parser("segments", help="show how a script's fusion is cut into kernels, and why")
    segments.add_argument("file", help="a fusion definition script (- for standard input)")
    segments.add_argument("--strategy", choices=STRATEGIES, default=HFUSE)
    segments.add_argument(
        "--no-alias", action="store_true", help="copy outputs that could stay views of inputs"
    )
    segments.add_argument("--code", action="store_true", help="also print the generated Triton source")
    segments.set_defaults(handler=cmd_segments)

    run = commands.add_parser("run", help="run a script's fusion, validate it and print its kernel list")
    _add_run_options(run)
    run.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    run.add_argument("--save", metavar="PATH", help="write inputs and outputs to a torch file")
    run.set_defaults(handler=cmd_run)

    report = commands.add_parser(
        "report", help="write one self-contained HTML file of a fusion: IR, cuts, kernels, a run"
    )
    _add_run_options(report)
    report.add_argument("-o", "--output", required=True, metavar="PATH", help="the HTML file to write")
    report.add_argument("--no-run", action="store_true", help="leave the run out (nothing is allocated)")
    report.add_argument(
        "--compare", action="store_true", help="also time the run beside torch eager and torch.compile (GPU)"
    )
    report.add_argument(
        "--triton-irs",
        action="store_true",
        help="add Triton's TTIR, TTGIR, LLVM IR and PTX of every kernel (compiled for sm_90, any machine)",
    )
    report.set_defaults(handler=cmd_report)

    bench_script = commands.add_parser(
        "bench-script", help="write a standalone benchmark script of a fusion (needs torch and Triton only)"
    )
    bench_script.add_argument("file", help="a fusion definition script (- for standard input)")
    bench_script.add_argument(
        "-o", "--output", required=True, metavar="PATH", help="the Python file to write"
    )
    bench_script.add_argument("--strategy", choices=STRATEGIES, default=HFUSE)
    bench_script.add_argument(
        "--no-alias", action="store_true", help="copy outputs that could stay views of inputs"
    )
    bench_script.set_defaults(handler=cmd_bench_script)

    examples = commands.add_parser("examples", help="list the example gallery")
    examples.add_argument("--subset", choices=list(SUBSETS), default="small")
    examples.set_defaults(handler=cmd_examples)

    # listed for --help only: main() hands `hfuse bench ...` to the benchmark, which parses its own options
    commands.add_parser(
        "bench", help="time the example suite at its benchmark sizes on a GPU (hfuse bench --help)"
    )
    return parser


def _add_run_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("file", help="a fusion definition script (- for standard input)")
    command.add_argument(
        "--device", choices=["cpu", "cuda"], help="default: cuda if a GPU is visible, else cpu"
    )
    command.add_argument("--backend", choices=BACKENDS, default=HFUSE)
    command.add_argument(
        "--no-alias", action="store_true", help="copy outputs that could stay views of inputs"
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        from hfuse.tools.bench import main as bench_main

        return bench_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except HfuseError as err:
        print(f"hfuse {args.command}: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
