"""The HTML report's pipeline and run sections: each pass flagged with what it changed, Triton's IRs of
each launch, the run's segmentation shaded by where the time went, and the roofline as inline SVG."""

from __future__ import annotations

import dataclasses
import re
import shutil

from hfuse import load
from hfuse.examples import get_example
from hfuse.roofline import Point
from hfuse.service.measure import Timing
from hfuse.tools.cli import main
from hfuse.tools.occupancy import Resources
from hfuse.tools.report import RunSummary, compile_strategies, report_html
from hfuse.tools.roofline_svg import roofline_svg
from hfuse.tools.triton_ir import LaunchIRs
from hfuse.viz import heat_color

SOFTMAX = get_example("softmax")
H200_GBS, H200_FLOPS = 4_800.0, 66.9e12


def gpu_like_run(text: str) -> tuple[object, RunSummary]:
    """A real run in the interpreter, its kernels given GPU times and operation counts."""
    script = load(text, device="cpu")
    script.fd.execute(script.inputs, alias_outputs=False, profile=True)
    profile = script.fd.profile()
    kernels = tuple(
        dataclasses.replace(k, time_ms=0.010 * (i + 1), flops=1_000_000)
        for i, k in enumerate(profile.segment_profiles)
    )
    profile = dataclasses.replace(
        profile,
        segment_profiles=kernels,
        flops=1_000_000 * len(kernels),
        peak_bandwidth_gbs=H200_GBS,
        peak_flops=H200_FLOPS,
        times_meaningful=True,
    )
    comparison = (
        Timing("hfuse", 1, 10.0, (9.8, 10.0, 10.4), 9.5, 24.0, 1 << 20),
        Timing("eager <b>", 5, 40.0, (39.0, 40.0, 41.0), 38.0, 60.0, 1 << 20),
        Timing("clone", 1, 8.0, (8.0, 8.0, 8.1), 7.9, 14.0, 1 << 20),
    )
    return script, RunSummary("hfuse", "NVIDIA H200", profile, True, "", comparison)


def test_a_report_shades_where_the_run_went_and_draws_its_roofline():
    script, run = gpu_like_run(SOFTMAX.text)
    page = report_html(script, compile_strategies(script, False), False, run)
    assert "<h3>Where the run went</h3>" in page and "share of the kernel time" in page
    if shutil.which("dot"):
        assert heat_color(1.0) in page  # the only kernel holds all of the time
    roofline = page[page.index("<h3>Roofline</h3>") :]
    assert 'aria-label="roofline' in roofline
    # a dot per timed kernel and per whole call but the clone's, each with its figures as a tooltip
    assert roofline.count("<circle") == len(run.profile.segment_profiles) + 2 + 3  # and 3 in the legend
    assert "whole call (hfuse): " in roofline and "GFLOP/s</title>" in roofline
    assert "4,800 GB/s" in roofline and "float32 peak 66.9 TFLOP/s" in roofline
    assert "eager &lt;b&gt;" in roofline and "eager <b>" not in page


def test_a_report_steps_through_the_passes_and_shows_tritons_irs_of_each_launch():
    script = load(get_example("qkv_split").text, device="meta")
    compiled = compile_strategies(script, True)
    irs = {
        "hfuse": [
            LaunchIRs(
                "hfuse_k",
                {"ttir": "tt.func @k() <x>\n", "ptx": ".version 8.4\n.target sm_90\n"},
                Resources(registers=72, shared_bytes=8208, local_bytes=0, warps=4),
            )
        ]
    }
    page = report_html(script, compiled, True, None, irs)
    passes = compiled["hfuse"].passes.stages
    steps = re.findall(
        r"<summary>(\d+)\. ([^:<]+): ([^<]*)(?:<span class=\"same\">no change</span>)?</summary>", page
    )
    assert [name for number, name, _ in steps[: len(passes)]] == [name for name, _ in passes]
    assert steps[0][2] == "the start"
    assert "<summary>hfuse_k: TTIR (1 line)</summary>" in page
    assert "<summary>hfuse_k: PTX (2 lines)</summary>" in page
    assert "tt.func @k() &lt;x&gt;" in page
    assert (
        "<p>hfuse_k on an SM of an H200: 72 registers a thread, 8,208 B shared memory a program, no spills"
        in page
    )
    assert "Triton's IRs of each kernel launch (hfuse, compiled for sm_90)" in page
    assert "Triton's IRs of each kernel launch (naive" not in page  # only where they were asked for


def test_a_roofline_without_points_is_not_drawn():
    assert roofline_svg([], H200_GBS, H200_FLOPS) == ""
    lone = roofline_svg([Point("k", "hfuse kernels", 0.25, 100.0)], None, None)
    assert lone.count("<circle") == 2 and "<polyline" not in lone  # no peak known: no roof


def test_report_compare_needs_a_gpu(capsys, tmp_path):
    code = main(
        [
            "report",
            str(get_example("add").path),
            "-o",
            str(tmp_path / "r.html"),
            "--device",
            "cpu",
            "--compare",
        ]
    )
    assert code != 0
    assert "--compare measures beside torch on a GPU" in capsys.readouterr().err


def test_report_triton_irs_compiles_every_kernel_of_both_strategies(capsys, tmp_path):
    page = tmp_path / "r.html"
    code = main(["report", str(get_example("add").path), "-o", str(page), "--no-run", "--triton-irs"])
    assert code == 0 and "compiling 2 kernels with Triton for sm_90" in capsys.readouterr().out
    text = page.read_text(encoding="utf-8")
    for strategy in ("hfuse", "naive"):
        assert f"Triton's IRs of each kernel launch ({strategy}, compiled for sm_90)" in text
    assert text.count(": PTX (") == 2 and ".target sm_90" in text
