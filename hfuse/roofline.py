"""A run's roofline: each kernel of the run, and each candidate's whole call, as a point of arithmetic
intensity (operations per byte moved) against achieved operations a second, under the device's bandwidth
roof and float32 compute roof. The app draws it as a chart, a report as an inline SVG."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hfuse.runtime.profile_model import FusionProfile
from hfuse.service.measure import CLONE, Timing

ROOF_SAMPLES = 64
BANDWIDTH, COMPUTE = "bandwidth", "float32 compute"


@dataclass(frozen=True, slots=True)
class Point:
    label: str  # a kernel's name, or "whole call"
    candidate: str
    intensity: float  # operations per byte
    gops: float  # billions of operations a second


@dataclass(frozen=True, slots=True)
class RoofPoint:
    intensity: float
    gops: float
    roof: str  # BANDWIDTH or COMPUTE


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


def roof(points: Sequence[Point], peak_gbs: float | None, peak_flops: float | None) -> list[RoofPoint]:
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
        RoofPoint(x, min(peak_gbs * x, compute), BANDWIDTH if peak_gbs * x < compute else COMPUTE)
        for x in samples
    ]


def roof_names(
    line: Sequence[RoofPoint], peak_gbs: float, peak_flops: float | None
) -> list[tuple[RoofPoint, str]]:
    """The roofs' figures, written on them: the bandwidth at the slope's start, the compute peak at the
    ridge."""
    names = [(line[0], f"{peak_gbs:,.0f} GB/s")]
    flat = [r for r in line if r.roof == COMPUTE]
    if flat and peak_flops:
        names.append((flat[0], f"float32 peak {peak_flops / 1e12:,.1f} TFLOP/s"))
    return names
