"""Run: compile and run the fusion, check it against torch, and read its kernels' times and bandwidth.

Runs go to the run service (hfuse.service.worker): one worker process, shared by every session, runs
them one at a time, so a crash or a hang of a run cannot take the app down and timings do not overlap.
"""

import time
from datetime import datetime

import streamlit as st

from hfuse.backends import STRATEGIES
from hfuse.errors import HfuseError
from hfuse.pipeline import Compiled
from hfuse.roofline import roofline_points
from hfuse.runtime.device import device_name, has_cuda
from hfuse.service.measure import CLONE, DESCRIPTIONS, ROUNDS
from hfuse.service.request import RunRequest, RunResult
from hfuse.service.worker import shared_service
from hfuse.tools.report import RunSummary, report_html
from hfuse.tools.run_table import kernel_table_csv
from hfuse.units import format_bytes, format_ms
from ui import pipeline, run_estimate, state, views
from ui.literal import literal
from ui.roofline import roofline_chart

RUN_TIMES = "run_times"  # server clock (asked, started, finished) of the run whose report is shown
CANCEL = "cancel_run"  # the Cancel button shown while a run goes on: true in the rerun its click makes
# What each column of the comparison measures (the benchmark's protocol, BENCHMARKS.md).
COMPARISON_HELP = {
    "candidate": "hfuse runs the fusion as this page compiled it; the others are what it is measured "
    "against, under the same output contract (views, or contiguous copies)",
    "kernels": "CUDA kernels one call launches, as torch.profiler sees them",
    "kernel time": f"median over {ROUNDS} interleaved rounds of triton.testing.do_bench's median, "
    "L2 flushed before each call",
    "spread": "the fastest and slowest round: a wide spread means a noisy figure",
    "device time": "the call's kernel durations added (torch.profiler), median of 10 calls: no host time",
    "host per call": "wall time per call over back-to-back calls, until the GPU is done: what a loop of "
    "cached calls costs, host work included",
    "GB/s": "the bytes the fusion must move (inputs read and outputs written once) over the kernel time",
    "% of clone": "a clone of the same bytes, timed in the same run, over this kernel time: 100 is the "
    "ceiling",
    "vs hfuse": "this candidate's kernel time over hfuse's: above 1, hfuse is faster",
}
KERNEL_HELP = {
    "kernel": "the generated kernel (or a segment that launches none: outputs left as views, torch ops)",
    "launches": "CUDA kernels this segment launches per call (a split reduction launches two)",
    "scheduler": "the kind of kernel the segmenter chose, as nvFuser names its schedulers",
    "grid": "programs launched",
    "warps": "warps per program",
    "time": "the kernel's time (GPU only)",
    "bytes": "what the kernel reads and writes, each tensor once",
    "GB/s": "bytes over time",
    "% of peak": "GB/s over the device's peak memory bandwidth",
    "compile": "the kernel's first launch: Triton's compile of it, or its load from Triton's cache where it "
    "was compiled before (side by side with the fusion's other kernels, or by an earlier run)",
}
STAGE_HELP = (
    "The first call of a new fusion: loading the script, the passes, segmentation and code generation, "
    "loading the kernel modules, compiling the kernels (side by side in child processes, when there are "
    "several), the first launches (where Triton compiles a kernel not compiled before), the check "
    "against torch (the reference, then the comparison) and, on a GPU, the same check of a second run on "
    "copies of the inputs holding NaN and infinities (special values)"
)


def _number(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:,.1f}{unit}"


def _clock(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).strftime("%H:%M:%S.%f")[:-3]


def _runs(count: int) -> str:
    return f"{count} run{'s' if count != 1 else ''}"


def _estimate_text(running_s: float, expected_s: float) -> str:
    return (
        f"{running_s:,.0f} s of about {expected_s:,.0f} s (an estimate: Triton's interpreter runs the "
        "kernels' programs one at a time, at the pace of this server's earlier runs)"
    )


def _interpreter_estimate(
    text: str, segment: int, strategy: str, outputs: str
) -> tuple[Compiled, float] | None:
    """The compiled fusion and the seconds its run should take in Triton's interpreter; None on a GPU,
    where runs take a few seconds, and where the fusion does not compile (the run reports why)."""
    if has_cuda():
        return None
    try:
        compiled = pipeline.compiled_of(text, strategy, outputs, segment)
    except HfuseError:
        return None
    return compiled, run_estimate.expected_s(compiled)


def run(text: str, segment: int, strategy: str, outputs: str) -> None:
    request = RunRequest(
        text, backend=strategy, alias_outputs=outputs == "views", compare=has_cuda(), segment=segment
    )
    asked = time.time()
    estimate = _interpreter_estimate(text, segment, strategy, outputs)
    with st.status("Compiling and running...", expanded=True) as progress:
        clock = st.empty()
        bar = None if estimate is None else st.progress(0.0, text=_estimate_text(0, estimate[1]))
        st.button("Cancel", key=CANCEL, icon=":material/stop:", help="Stops the run and frees the queue")
        shown = {"step": "compiling and running", "seconds": -1, "started": asked}

        def waiting(ahead: int) -> None:
            shown["step"] = f"waiting for {_runs(ahead)} of other sessions, then compiling and running"
            shown["started"] = time.time()  # the estimate counts from the run's own start

        def still_wanted() -> None:
            """Streamlit stops or reruns the script at a page update when its visitor pressed Stop or
            Cancel: the exception it raises here cancels the run (the service replaces its worker)."""
            seconds = int(time.time() - asked)
            if seconds != shown["seconds"]:
                shown["seconds"] = seconds
                clock.caption(f"{seconds} s: {shown['step']}")
                if bar is not None:
                    running, expected = time.time() - shown["started"], estimate[1]
                    bar.progress(min(running / expected, 0.99), text=_estimate_text(running, expected))

        result = shared_service().run(request, on_wait=waiting, poll=still_wanted)
        if result.failure is not None:
            progress.update(label="The run failed", state="error")
            st.session_state.pop(state.RUN_REPORT, None)
            views.show_error(result.failure.exception(), text)
            return
        progress.update(
            label=f"Done: first call {format_ms(result.first_call_ms)} (compile, launch, check)",
            state="complete",
            expanded=False,
        )
    if estimate is not None:
        run_estimate.record(estimate[0], result.finished_at - result.started_at)
    st.session_state[state.RUN_REPORT] = ((text, strategy, outputs, segment), result)
    st.session_state[RUN_TIMES] = (asked, result.started_at, result.finished_at)


def show_run_log(waited_s: float) -> None:
    if RUN_TIMES not in st.session_state:
        return
    asked, started, finished = st.session_state[RUN_TIMES]
    st.caption(
        f"Run log (server clock): asked {_clock(asked)}, started {_clock(started)}, "
        f"finished {_clock(finished)}; waited {waited_s:,.2f} s for other sessions' runs."
    )


def show_checks(result: RunResult, names: dict[str, str]) -> None:
    bad = [o for o in result.outputs if not o.ok]
    if bad:
        st.error(
            f"{len(bad)} of {len(result.outputs)} outputs differ from torch.\n\n"
            + "\n".join(f"- **{literal(o.name)}**: {literal(o.message)}" for o in bad)
        )
    else:
        st.success(f"All {len(result.outputs)} outputs match torch within their dtype's tolerance.")
    st.dataframe(
        [
            {
                "output": f"{o.name} ({names[o.name]})" if o.name in names else o.name,
                "shape": str(list(o.shape)),
                "dtype": o.dtype,
                "matches": o.ok,
                "max abs error": o.max_abs_error,
                "first values": ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in o.preview),
                "detail": o.message,
            }
            for o in result.outputs
        ],
        hide_index=True,
        key="run_checks",
        column_config={
            "first values": st.column_config.TextColumn(width="medium"),  # the detail has the room to show
            "detail": st.column_config.TextColumn(width="large"),
        },
    )


def show_kernels(result: RunResult) -> None:
    profile = result.profile
    rows = [
        {
            "kernel": k.name if k.launches_kernel else f"{k.name} (no kernel)",
            "launches": k.launches,
            "scheduler": k.scheduler,
            "grid": str(k.grid) if k.grid else "-",
            "warps": k.num_warps or "-",
            "time": format_ms(k.time_ms),
            "bytes": format_bytes(k.input_bytes + k.output_bytes),
            "GB/s": _number(k.effective_bandwidth_gbs),
            "% of peak": _number(k.percentage_peak_bandwidth, " %"),
            "compile": "cached" if profile.cache_hit else format_ms(k.compile_time_ms),
        }
        for k in profile.segment_profiles
    ]
    st.dataframe(
        rows,
        hide_index=True,
        key="run_kernels",
        column_config={name: st.column_config.Column(help=text) for name, text in KERNEL_HELP.items()},
    )
    totals = st.columns(6)
    totals[0].metric(
        "Kernels",
        profile.segments,
        help="CUDA kernels one call launches: a split reduction's two launches count two; views and torch "
        "segments count none",
    )
    totals[1].metric(
        "Kernel time",
        format_ms(profile.kernel_time_ms),
        help="The kernels' times added, each the median of repeated launches with the L2 cache flushed "
        "(measured on a GPU only)",
    )
    moved = sum(k.input_bytes + k.output_bytes for k in profile.segment_profiles)
    ideal = profile.input_bytes + profile.output_bytes
    totals[2].metric(
        "Bytes moved",
        format_bytes(moved),
        delta=None if moved == ideal else f"{format_bytes(moved - ideal)} between kernels",
        delta_color="inverse",
        help=f"What the kernels read and wrote, the rows above added. The fusion's own traffic (its inputs "
        f"read and its outputs written once) is {format_bytes(ideal)}: more means tensors between kernels "
        "went through memory",
    )
    totals[3].metric(
        "Bandwidth",
        _number(profile.effective_bandwidth_gbs, " GB/s"),
        help=None
        if profile.peak_bandwidth_gbs is None
        else f"{_number(profile.percentage_peak_bandwidth)} % of the "
        f"{profile.peak_bandwidth_gbs:,.0f} GB/s peak",
    )
    hfuse_timing = next((c for c in result.comparison if c.candidate == profile.backend), None)
    totals[4].metric(
        "Host per call",
        format_ms(hfuse_timing.e2e_us / 1e3) if hfuse_timing else "-",
        help="A cached call's wall time, back to back, host work included (measured on a GPU only)",
    )
    totals[5].metric("First call", format_ms(result.first_call_ms), help=STAGE_HELP)
    timed = [k for k in profile.segment_profiles if k.effective_bandwidth_gbs is not None]
    if timed:
        st.markdown(
            "**Bandwidth per kernel**"
            + (f" (peak {profile.peak_bandwidth_gbs:,.0f} GB/s)" if profile.peak_bandwidth_gbs else "")
        )
        chart = {"kernel": [k.name for k in timed], "GB/s": [k.effective_bandwidth_gbs for k in timed]}
        if profile.peak_bandwidth_gbs:
            chart["headroom to peak"] = [
                max(profile.peak_bandwidth_gbs - k.effective_bandwidth_gbs, 0) for k in timed
            ]
        st.bar_chart(
            chart,
            x="kernel",
            y=[c for c in chart if c != "kernel"],
            horizontal=True,
            color=["#3b7dd8", "#8888884d"][: len(chart) - 1],  # translucent grey: faint on either theme
        )


def show_roofline(result: RunResult) -> None:
    """Each timed kernel, and each candidate's whole call, under the device's roofs."""
    profile = result.profile
    points = roofline_points(profile, result.comparison)
    if not points:
        return
    st.markdown("**Roofline**: how far each kernel and each whole call is from the device's roofs")
    st.caption(
        "Arithmetic intensity is the operations of a kernel's ops (one an element for elementwise ops and "
        "reductions, 2MNK for a matrix product; casts and movement count none) over the bytes it moved; a "
        "whole call's is the fusion's operations over the bytes it must move at least. The dashed line is "
        "the roof: the peak bandwidth times the intensity, up to the device's float32 peak. A point under "
        "the sloped part is bound by memory: its distance to the line is what is left to gain."
    )
    chart = roofline_chart(points, profile.peak_bandwidth_gbs, profile.peak_flops)
    st.altair_chart(chart, key="run_roofline")


def show_first_call(result: RunResult) -> None:
    if not result.first_call_stages:
        return
    with st.expander(f"Where the first call's {format_ms(result.first_call_ms)} went", expanded=False):
        st.caption(STAGE_HELP)
        stages = dict(result.first_call_stages)
        st.bar_chart({"stage": list(stages), "ms": list(stages.values())}, x="stage", y="ms", horizontal=True)


def show_comparison(result: RunResult) -> None:
    timings = result.comparison
    ours = timings[0]
    clone = next((t for t in timings if t.candidate == CLONE), None)
    st.markdown("**Beside torch**, measured in one run with the benchmark's protocol")
    rows = [
        {
            "candidate": f"hfuse ({t.candidate})" if t is ours else t.candidate,
            "kernels": t.kernels,
            "kernel time": format_ms(t.kernel_us / 1e3),
            "spread": f"{format_ms(min(t.rounds_us) / 1e3)} - {format_ms(max(t.rounds_us) / 1e3)}",
            "device time": format_ms(t.device_us / 1e3),
            "host per call": format_ms(t.e2e_us / 1e3),
            "GB/s": _number(t.gbs),
            "% of clone": _number(100 * clone.kernel_us / t.kernel_us) if clone and t.kernel_us else "-",
            "vs hfuse": f"{t.kernel_us / ours.kernel_us:.2f}x" if ours.kernel_us else "-",
        }
        for t in timings
    ]
    st.dataframe(
        rows,
        hide_index=True,
        key="run_comparison",
        column_config={name: st.column_config.Column(help=text) for name, text in COMPARISON_HELP.items()},
    )
    names = {t.candidate for t in timings}
    st.caption(" ".join(f"{text}." for name, text in DESCRIPTIONS.items() if name in names))
    for note in result.comparison_notes:
        st.warning(note)


def show_exports(text: str, segment: int, strategy: str, outputs: str, result: RunResult) -> None:
    """The run as JSON, its kernel table as CSV, and the fusion with this run as one HTML file to attach to
    an issue."""
    problem = next((o.message for o in result.outputs if not o.ok), "")
    summary = RunSummary(strategy, device_name(), result.profile, result.ok, problem, result.comparison)
    compiled = {s: pipeline.compiled_of(text, s, outputs, segment) for s in STRATEGIES}
    report = report_html(pipeline.script_of(text, segment), compiled, outputs == "views", summary)
    left, middle, right, _ = st.columns([1, 1, 1, 1])
    left.download_button(
        "Run as JSON",
        result.to_json(),
        file_name="hfuse-run.json",
        mime="application/json",
        key="export_json",
        icon=":material/data_object:",
        help="Outputs and their checks, the kernel list, the first call's stages, the comparison",
    )
    middle.download_button(
        "Kernels as CSV",
        kernel_table_csv(result.profile),
        file_name="hfuse-kernels.csv",
        mime="text/csv",
        key="export_csv",
        icon=":material/table:",
        help="The kernel table, one row a segment: times in ms, bytes, GB/s, % of peak (empty where not "
        "measured)",
    )
    right.download_button(
        "Report as HTML",
        report,
        file_name="hfuse-report.html",
        mime="text/html",
        key="export_report",
        icon=":material/description:",
        help="One file, no server needed: the definition, its IR, both strategies' cuts with their "
        "reasons, every kernel's source and this run",
    )


st.header("Run")
on_gpu = has_cuda()
if on_gpu:
    st.caption(
        f"Runs on {device_name()}, in a worker process shared by all sessions: runs take turns, so timings "
        "do not disturb each other."
    )
else:
    st.warning(
        "No GPU here: kernels run in Triton's interpreter on the CPU. Results are checked against torch, "
        "but times and bandwidth are not measured (they would not mean anything).",
        icon=":material/info:",
    )
fusion = views.current_fusion()
if fusion is not None:
    text, segment = state.definition(), state.segment()
    controls = st.columns([2, 2, 1], vertical_alignment="bottom")
    strategy = state.option_control("strategy", controls[0])
    outputs = state.option_control("outputs", controls[1])
    if controls[2].button("Run", type="primary", key="run", icon=":material/play_arrow:", width="stretch"):
        run(text, segment, strategy, outputs)
    elif st.session_state.get(CANCEL):
        st.warning("The run was cancelled: nothing of it goes on running.", icon=":material/stop:")
    shown = st.session_state.get(state.RUN_REPORT)
    if shown is not None and shown[0] == (text, strategy, outputs, segment):
        result = shown[1]
        show_run_log(result.waited_s)
        show_checks(result, pipeline.script_of(text, segment).names)
        show_kernels(result)
        show_roofline(result)
        show_first_call(result)
        if result.comparison:
            show_comparison(result)
        show_exports(text, segment, strategy, outputs, result)
    elif shown is None or shown[0][0] == text:
        st.info("Press Run to compile the kernels and run them on inputs made as the script says.")
    else:
        st.info("The definition changed since the last run: press Run again.")
