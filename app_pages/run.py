"""Run: compile and run the fusion, check it against torch, and read its kernels' times and bandwidth."""

import time
from datetime import datetime

import streamlit as st

from hfuse.errors import HfuseError
from hfuse.runtime.device import device_name, has_cuda
from hfuse.viz import format_bytes
from ui import pipeline, runner, state, views

REPORT = "run_report"
RUN_TIMES = "run_times"  # server clock (asked, started, finished) of the run whose report is shown


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} us" if value < 1 else f"{value:,.2f} ms"


def _number(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:,.1f}{unit}"


def _clock(seconds: float) -> str:
    return datetime.fromtimestamp(seconds).strftime("%H:%M:%S.%f")[:-3]


def run(text: str, strategy: str, outputs: str) -> None:
    lock = pipeline.gpu_lock()
    asked = time.time()
    with st.status("Compiling and running...", expanded=True) as progress:
        if not lock.acquire(blocking=False):
            progress.update(label="Waiting for another session's run to finish...")
            lock.acquire()
        started = time.time()
        try:
            progress.update(label="Compiling and running...")
            report = runner.run_definition(text, strategy, outputs)
            finished = time.time()
        except HfuseError as err:
            progress.update(label="The run failed", state="error")
            st.session_state.pop(REPORT, None)
            views.show_error(err, text)
            return
        finally:
            lock.release()
        progress.update(
            label=f"Done: first call {report.first_call_ms:,.0f} ms (compile, launch, check)",
            state="complete",
            expanded=False,
        )
    st.session_state[REPORT] = report
    st.session_state[RUN_TIMES] = (asked, started, finished)


def show_run_log() -> None:
    if RUN_TIMES not in st.session_state:
        return
    asked, started, finished = st.session_state[RUN_TIMES]
    st.caption(
        f"Run log (server clock): asked {_clock(asked)}, started {_clock(started)}, "
        f"finished {_clock(finished)}; waited {started - asked:,.2f} s for other sessions' runs."
    )


def show_checks(report: runner.RunReport) -> None:
    bad = [c for c in report.checks if not c.ok]
    if bad:
        st.error(f"{len(bad)} of {len(report.checks)} outputs differ from torch.")
    else:
        st.success(f"All {len(report.checks)} outputs match torch within their dtype's tolerance.")
    st.dataframe(
        [
            {
                "output": c.name,
                "shape": str(list(c.shape)),
                "dtype": c.dtype,
                "matches": c.ok,
                "max abs error": c.max_abs_error,
                "detail": c.message,
            }
            for c in report.checks
        ],
        hide_index=True,
        key="run_checks",
    )


def show_kernels(report: runner.RunReport) -> None:
    profile = report.profile
    rows = [
        {
            "kernel": k.name if k.launches_kernel else f"{k.name} (no kernel)",
            "scheduler": k.scheduler,
            "grid": str(k.grid) if k.grid else "-",
            "warps": k.num_warps or "-",
            "time": _ms(k.time_ms),
            "bytes": format_bytes(k.input_bytes + k.output_bytes),
            "GB/s": _number(k.effective_bandwidth_gbs),
            "% of peak": _number(k.percentage_peak_bandwidth, " %"),
            "compile": f"{k.compile_time_ms:,.1f} ms",
        }
        for k in profile.kernel_profiles
    ]
    st.dataframe(rows, hide_index=True, key="run_kernels")
    totals = st.columns(6)
    totals[0].metric("Kernels", profile.segments)
    totals[1].metric("Kernel time", _ms(profile.kernel_time_ms))
    totals[2].metric("Bytes moved", format_bytes(profile.input_bytes + profile.output_bytes))
    totals[3].metric(
        "Bandwidth",
        _number(profile.effective_bandwidth_gbs, " GB/s"),
        help=None
        if profile.peak_bandwidth_gbs is None
        else f"{_number(profile.percentage_peak_bandwidth)} % of the "
        f"{profile.peak_bandwidth_gbs:,.0f} GB/s peak",
    )
    totals[4].metric("Host time", _ms(profile.host_time_ms))
    totals[5].metric("Compile", f"{report.compile_ms:,.0f} ms", help="0 when the kernels came from the cache")
    timed = [k for k in profile.kernel_profiles if k.effective_bandwidth_gbs is not None]
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
            color=["#3b7dd8", "#dddddd"][: len(chart) - 1],
        )


def show_baselines(report: runner.RunReport) -> None:
    rows = [
        {
            "backend": f"hfuse ({report.profile.backend})",
            "kernels": report.profile.segments,
            "kernel time": _ms(report.profile.kernel_time_ms),
            "host time": _ms(report.profile.host_time_ms),
        }
    ]
    rows += [
        {
            "backend": b.title,
            "kernels": b.kernels,
            "kernel time": _ms(b.profile.kernel_time_ms),
            "host time": _ms(b.profile.host_time_ms),
        }
        for b in report.baselines
    ]
    st.markdown("**Beside torch**")
    st.dataframe(rows, hide_index=True, key="run_baselines")


st.header("Run")
on_gpu = has_cuda()
if on_gpu:
    st.caption(
        f"Runs on {device_name()}. Runs of all sessions take turns, so timings do not disturb each other."
    )
else:
    st.warning(
        "No GPU here: kernels run in Triton's interpreter on the CPU. Results are checked against torch, "
        "but times and bandwidth are not measured (they would not mean anything).",
        icon=":material/info:",
    )
fusion = views.current_fusion()
if fusion is not None:
    text = state.definition()
    controls = st.columns([2, 2, 1], vertical_alignment="bottom")
    strategy = state.option_control("strategy", controls[0])
    outputs = state.option_control("outputs", controls[1])
    if controls[2].button("Run", type="primary", key="run", icon=":material/play_arrow:", width="stretch"):
        run(text, strategy, outputs)
    report = st.session_state.get(REPORT)
    if report is not None and report.key == (text, strategy, outputs):
        show_run_log()
        show_checks(report)
        show_kernels(report)
        if report.baselines:
            show_baselines(report)
    elif report is None or report.key[0] == text:
        st.info("Press Run to compile the kernels and run them on inputs made as the script says.")
    else:
        st.info("The definition changed since the last run: press Run again.")
