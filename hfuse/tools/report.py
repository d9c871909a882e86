"""A fusion as one HTML file to attach to an issue: the definition, its IR, how each strategy cuts it
(diagrams as inline SVG, with the reasons), each compile's pipeline step by step (the IR through the
passes with what each changed, and where asked Triton's own IRs of every kernel), the generated Triton
source and, after a run, the kernel table, the validation, the segmentation shaded by each kernel's
share of the run and the roofline. Nothing in the file is loaded from the network and it holds no
script: every text from the definition is escaped, and the diagrams are the SVG graphviz's `dot` writes,
whose labels it escapes itself.
"""

from __future__ import annotations

import html
import platform
import time
from dataclasses import dataclass
from typing import Any

from hfuse.backends import NAIVE, STRATEGIES
from hfuse.loader import Script
from hfuse.pipeline import Compiled, compile_fusion
from hfuse.printer import print_fusion
from hfuse.roofline import roofline_points
from hfuse.runtime.profile_model import FusionProfile, KernelProfile
from hfuse.segment.report import format_segmentation
from hfuse.service.measure import CLONE, Timing
from hfuse.stages import ir_stages
from hfuse.tools.roofline_svg import roofline_svg
from hfuse.tools.triton_ir import TARGET, LaunchIRs

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 80rem; padding: 0 1rem; }
body { color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
pre { background: #f6f8fa; padding: 0.8rem; overflow-x: auto; font-size: 0.85rem; }
table { border-collapse: collapse; font-size: 0.85rem; }
td, th { border: 1px solid #ddd; padding: 0.3rem 0.6rem; }
th { background: #f0f0f0; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.diagram svg { max-width: 100%; height: auto; } .note { color: #666; font-size: 0.85rem; }
.bad { color: #b00020; font-weight: 600; } .ok { color: #1b7f3b; font-weight: 600; }
.same { color: #888; } summary { cursor: pointer; }
@media (prefers-color-scheme: dark) {
  body { background: #111; color: #ddd; } pre { background: #1c1f24; } th { background: #222; }
  td, th { border-color: #333; } .diagram svg { background: #fff; }
}
"""
# (title, key of a kernel row, digits): the run table's columns
COMPARISON_COLUMNS = (
    "candidate", "kernels", "kernel us", "spread us", "device us", "host per call us", "GB/s", "% of clone",
)  # fmt: skip
RUN_COLUMNS = (
    ("#", "index", None),
    ("kernel", "name", None),
    ("scheduler", "scheduler", None),
    ("grid", "grid", None),
    ("warps", "num_warps", None),
    ("time us", "time_us", 1),
    ("input MB", "input_bytes", 3),
    ("output MB", "output_bytes", 3),
    ("GB/s", "effective_bandwidth_gbs", 0),
    ("% peak", "percentage_peak_bandwidth", 1),
)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """What a run of the fusion gave: its profile (None for the eager backend) and whether its outputs
    matched the torch reference (`problem` says how they did not)."""

    backend: str
    device: str
    profile: FusionProfile | None
    ok: bool
    problem: str = ""
    comparison: tuple[Timing, ...] = ()  # the run beside its baselines, measured in one run (GPU only)


def kernel_row(index: int, kernel: KernelProfile) -> dict[str, Any]:
    """One kernel of a profile as plain values (the JSON and CSV form, and the source of a table row)."""
    return {
        "index": index,
        "name": kernel.name,
        "segment_id": kernel.segment_id,
        "scheduler": kernel.scheduler,
        "launches_kernel": kernel.launches_kernel,
        "launches": kernel.launches,
        "grid": list(kernel.grid),
        "num_warps": kernel.num_warps,
        "time_us": None if kernel.time_ms is None else kernel.time_ms * 1e3,
        "compile_time_ms": kernel.compile_time_ms,
        "input_bytes": kernel.input_bytes,
        "output_bytes": kernel.output_bytes,
        "effective_bandwidth_gbs": kernel.effective_bandwidth_gbs,
        "percentage_peak_bandwidth": kernel.percentage_peak_bandwidth,
    }


def compile_strategies(script: Script, alias_outputs: bool) -> dict[str, Compiled]:
    return {s: compile_fusion(script.fusion, strategy=s, alias_outputs=alias_outputs) for s in STRATEGIES}


def report_html(
    script: Script,
    compiled: dict[str, Compiled],
    alias_outputs: bool,
    run: RunSummary | None,
    irs: dict[str, list[LaunchIRs]] | None = None,
) -> str:
    """The whole report of a loaded script compiled by each strategy; `run` adds the run's kernel table,
    its shaded segmentation and roofline; `irs` (by strategy) adds Triton's IRs of each kernel launch."""
    fusion = script.fusion
    title = f"{len(fusion.inputs)} inputs, {len(fusion.exprs)} ops, {len(fusion.outputs)} outputs"
    outputs = "views allowed" if alias_outputs else "contiguous outputs"
    counts = ", ".join(f"{s} {c.kernel_count}" for s, c in compiled.items())
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>hfuse report: {_e(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>hfuse report: {_e(title)}</h1>",
        f'<p class="note">{_e(_environment())}; read as: {_e(script.format)}; '
        f"outputs: {_e(outputs)}; kernels: {_e(counts)}</p>",
    ]
    if run is not None:
        parts += _run_section(run, compiled.get(run.backend))
    parts += ["<h2>Definition</h2>", _pre(script.text), "<h2>IR</h2>", _pre(print_fusion(fusion))]
    parts += _diagram(lambda viz: viz.ir_graph(fusion))
    for strategy, stages in compiled.items():
        parts += _strategy_section(strategy, stages)
        parts += _pipeline_section(strategy, stages, (irs or {}).get(strategy))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _strategy_section(strategy: str, compiled: Compiled) -> list[str]:
    what = "one kernel per op" if strategy == NAIVE else "fused"
    parts = [f"<h2>Segmentation: {_e(strategy)} ({what}), {compiled.kernel_count} kernel launch(es)</h2>"]
    parts += _diagram(lambda viz: viz.segmentation_graph(compiled.scheduled, compiled.segmentation))
    parts.append(_pre(format_segmentation(compiled.scheduled, compiled.segmentation, compiled.launches)))
    for kernel in compiled.kernels:
        summary = f"{kernel.name}: segment {kernel.group_id}, grid {kernel.grid}"
        parts.append(f"<details><summary>{_e(summary)}</summary>{_pre(kernel.source)}</details>")
    return parts


def _pipeline_section(strategy: str, compiled: Compiled, irs: list[LaunchIRs] | None) -> list[str]:
    """The IR as defined and after each pass, each step flagged changed or not and shown as its diff
    against the step before; then Triton's IRs of each kernel launch, where they were asked for."""
    parts = [f"<h3>Pipeline ({_e(strategy)}): the IR through the passes</h3>"]
    for number, stage in enumerate(ir_stages(compiled), start=1):  # the cut and the source are above
        if stage.follows is None:
            flag = "the start"
        else:
            flag = "changed" if stage.changed else '<span class="same">no change</span>'
        shown = stage.diff or stage.text
        summary = f"{number}. {_e(stage.name)}: {flag}"
        parts.append(f"<details><summary>{summary}</summary>{_pre(shown)}</details>")
    if irs is None:
        return parts
    parts.append(f"<h3>Triton's IRs of each kernel launch ({_e(strategy)}, compiled for {TARGET})</h3>")
    for launch in irs:
        if launch.held is not None:
            parts.append(f"<p>{_e(launch.held)}</p>")
        for stage, text in launch.irs.items():
            lines = len(text.splitlines())
            summary = f"{launch.kernel}: {stage.upper()} ({lines:,} line{'s' if lines != 1 else ''})"
            parts.append(f"<details><summary>{_e(summary)}</summary>{_pre(text)}</details>")
    return parts


def _run_section(run: RunSummary, compiled: Compiled | None) -> list[str]:
    state = (
        '<span class="ok">matches the torch reference</span>'
        if run.ok
        else f'<span class="bad">DOES NOT match the torch reference: {_e(run.problem)}</span>'
    )
    parts = [f"<h2>Run: backend {_e(run.backend)} on {_e(run.device)}</h2>", f"<p>Validation: {state}</p>"]
    profile = run.profile
    if profile is None:
        note = '<p class="note">The eager backend runs torch op by op: no kernel list.</p>'
        return [*parts, note, *_comparison(run.comparison)]
    head = "".join(f"<th>{_e(title)}</th>" for title, _, _ in RUN_COLUMNS)
    rows = [kernel_row(i, k) for i, k in enumerate(profile.segment_profiles)]
    body = "".join(
        "<tr>" + "".join(_cell(row, key, digits) for _, key, digits in RUN_COLUMNS) + "</tr>" for row in rows
    )
    total = (
        f"{profile.segments} kernel launch(es); kernel time "
        f"{_number(None if profile.kernel_time_ms is None else profile.kernel_time_ms * 1e3, 1)} us; "
        f"host time {profile.host_time_ms:.2f} ms; compile time {profile.compile_time_ms:.2f} ms"
    )
    parts += [f"<table><tr>{head}</tr>{body}</table>", f"<p>{_e(total)}</p>"]
    if not profile.times_meaningful:
        parts.append('<p class="note">Times are not meaningful in Triton\'s interpreter (no GPU).</p>')
    if compiled is not None:
        parts += _shaded_segmentation(profile, compiled)
    parts += _comparison(run.comparison)
    return parts + _roofline(profile, run.comparison)


def _shaded_segmentation(profile: FusionProfile, compiled: Compiled) -> list[str]:
    """The run's segmentation with each segment shaded by its share of the run."""
    what = "kernel time" if profile.times_meaningful else "bytes moved (times mean nothing on the CPU)"
    caption = (
        f'<p class="note">The deeper the orange, the larger the segment\'s share of the '
        f"{what}; each segment's title gives its figures.</p>"
    )
    return ["<h3>Where the run went</h3>", caption] + _diagram(
        lambda viz: viz.segmentation_graph(
            compiled.scheduled, compiled.segmentation, measured=viz.measured_segments(profile)
        )
    )


def _roofline(profile: FusionProfile, timings: tuple[Timing, ...]) -> list[str]:
    svg = roofline_svg(roofline_points(profile, timings), profile.peak_bandwidth_gbs, profile.peak_flops)
    if not svg:
        return []
    return [
        "<h3>Roofline</h3>",
        '<p class="note">Each timed kernel, and each candidate\'s whole call, as arithmetic intensity (the '
        "operations of its ops over the bytes it moved) against the operations a second it reached; the "
        "dashed line is the device's bandwidth roof up to its float32 peak. A point under the slope is "
        "bound by memory, and its distance to the line is what is left to gain.</p>",
        f'<div class="diagram">{svg}</div>',
    ]


def _comparison(timings: tuple[Timing, ...]) -> list[str]:
    """The candidates timed side by side: kernel time (median of rounds, with the spread), device time,
    host time per call, bandwidth and the share of a same-bytes clone."""
    if not timings:
        return []
    clone = next((t.kernel_us for t in timings if t.candidate == CLONE), None)
    head = "".join(f"<th>{title}</th>" for title in COMPARISON_COLUMNS)
    rows = []
    for t in timings:
        cells = [
            _e(t.candidate),
            str(t.kernels),
            f"{t.kernel_us:,.1f}",
            f"{min(t.rounds_us):,.1f} - {max(t.rounds_us):,.1f}",
            f"{t.device_us:,.1f}",
            f"{t.e2e_us:,.1f}",
            _number(t.gbs, 0),
            _number(100 * clone / t.kernel_us if clone and t.kernel_us else None, 1),
        ]
        rows.append("<tr>" + "".join(f'<td class="n">{c}</td>' for c in cells) + "</tr>")
    return [
        "<h3>Beside torch, measured in one run</h3>",
        f"<table><tr>{head}</tr>{''.join(rows)}</table>",
        '<p class="note">Kernel time: median of interleaved rounds, L2 flushed; device time: the kernels\' '
        "durations from torch.profiler; host per call: back-to-back calls.</p>",
    ]


def _cell(row: dict[str, Any], key: str, digits: int | None) -> str:
    value = row[key]
    if key == "grid":
        value = "x".join(str(g) for g in value) if row["launches_kernel"] else "-"
    if digits is None:
        return f"<td>{_e(str(value))}</td>"
    if key.endswith("_bytes"):
        value = value / 1e6
    return f'<td class="n">{_e(_number(value, digits))}</td>'


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _diagram(build: Any) -> list[str]:
    """A diagram as inline SVG; a note where the graphviz package or its `dot` binary is missing."""
    try:
        from hfuse import viz
    except ImportError:
        return ['<p class="note">Diagrams need the graphviz Python package (pip install graphviz).</p>']
    graph = build(viz)
    svg = viz.render_svg(graph)
    if svg is None:
        return [
            "<p class=\"note\">Graphviz's dot is not installed; the diagram's DOT source:</p>",
            _pre(graph.source),
        ]
    return [f'<div class="diagram">{svg[svg.index("<svg") :]}</div>']


def _environment() -> str:
    import torch

    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU (Triton's interpreter)"
    made = time.strftime("%Y-%m-%d %H:%M %Z")
    return f"made {made} on {device}, torch {torch.__version__}, Python {platform.python_version()}"


def _pre(text: str) -> str:
    return f"<pre>{_e(text)}</pre>"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
