"""The Run page's roofline: each kernel of the run, and each candidate's whole call, as a point of
arithmetic intensity (operations per byte moved) against achieved operations a second, under the
device's bandwidth roof and float32 compute roof."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt

from hfuse.runtime.profile_model import FusionProfile
from hfuse.service.measure import CLONE, Timing

ROOF_SAMPLES = 64
ROOF_TEXT_COLOR = "#808495"  # a grey that reads on a light and a dark theme (a chart cannot read the theme)


@dataclass(frozen=True, slots=True)
class Point:
    label: str  # a kernel's name, or "whole call"
    candidate: str
    intensity: float  # operations per byte
    gops: float  # billions of operations a second


def roofline_points(profile: FusionProfile, comparison: Sequence[Timing]) -> list[Point]:
    """The run's timed kernels that compute something, and each measured candidate's whole call (the
    fusion's operations over the bytes it must move at least; a clone computes nothing and is left out)."""
    points = []
    for kernel in profile.segment_profiles:
        moved = kernel.input_bytes + kernel.output_bytes
        if kernel.time_ms and kernel.flops and moved:
            gops = kernel.flops / kernel.time_ms / 1e6
            points.append(Point(kernel.name, f"{profile.backend} kernels", kernel.flops / moved, gops))
    for timing in comparison:
        if timing.candidate == CLONE or not (timing.kernel_us and timing.nbytes and profile.flops):
            continue
        gops = profile.flops / timing.kernel_us / 1e3
        points.append(Point("whole call", timing.candidate, profile.flops / timing.nbytes, gops))
    return points


def roofline_chart(points: Sequence[Point], peak_gbs: float | None, peak_flops: float | None) -> alt.Chart:
    data = alt.Data(
        values=[
            {"label": p.label, "candidate": p.candidate, "FLOP per byte": p.intensity, "GFLOP/s": p.gops}
            for p in points
        ]
    )
    x = alt.X("FLOP per byte:Q", scale=alt.Scale(type="log"), title="arithmetic intensity (FLOP per byte)")
    y = alt.Y("GFLOP/s:Q", scale=alt.Scale(type="log"), title="achieved GFLOP/s")
    dots = (
        alt.Chart(data)
        .mark_point(size=90, filled=True)
        .encode(
            x=x,
            y=y,
            color=alt.Color("candidate:N"),
            shape="candidate:N",
            tooltip=["label:N", "candidate:N", "FLOP per byte:Q", "GFLOP/s:Q"],
        )
    )
    roof = _roof(points, peak_gbs, peak_flops)
    if not roof:
        return dots
    line = (
        alt.Chart(alt.Data(values=roof))
        .mark_line(color="#888", strokeDash=[4, 3])
        .encode(x="FLOP per byte:Q", y="GFLOP/s:Q", tooltip=["roof:N"])
    )
    names = (
        alt.Chart(alt.Data(values=_roof_names(roof, peak_gbs, peak_flops)))
        .mark_text(align="left", dx=6, dy=-8, color=ROOF_TEXT_COLOR, fontSize=11)
        .encode(x="FLOP per byte:Q", y="GFLOP/s:Q", text="text:N")
    )
    return (line + names + dots).properties(height=380)


def _roof_names(roof: list[dict], peak_gbs: float, peak_flops: float | None) -> list[dict]:
    """The roofs' figures, written on them: the bandwidth at the slope's start, the compute peak at the
    ridge."""
    names = [{**roof[0], "text": f"{peak_gbs:,.0f} GB/s"}]
    flat = [r for r in roof if r["roof"] == "float32 compute"]
    if flat and peak_flops:
        names.append({**flat[0], "text": f"float32 peak {peak_flops / 1e12:,.1f} TFLOP/s"})
    return names


def _roof(points: Sequence[Point], peak_gbs: float | None, peak_flops: float | None) -> list[dict]:
    """The roof along the points' range of intensity (and the ridge point): the bandwidth roof, then the
    compute roof where the device's float32 peak is known."""
    if not points or not peak_gbs:
        return []
    compute = peak_flops / 1e9 if peak_flops else math.inf
    ridge = compute / peak_gbs
    low = min(p.intensity for p in points) / 4
    high = max(max(p.intensity for p in points) * 4, ridge * 4 if math.isfinite(ridge) else 0)
    samples = [low * (high / low) ** (i / (ROOF_SAMPLES - 1)) for i in range(ROOF_SAMPLES)]
    if math.isfinite(ridge) and low < ridge < high:
        samples = sorted([*samples, ridge])
    return [
        {
            "FLOP per byte": x,
            "GFLOP/s": min(peak_gbs * x, compute),
            "roof": "bandwidth" if peak_gbs * x < compute else "float32 compute",
        }
        for x in samples
    ]
