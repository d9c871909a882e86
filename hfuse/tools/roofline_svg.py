"""A roofline as one inline SVG (log-log axes, the device's roofs, a dot per kernel or whole call with
its figures as a tooltip), for a report that loads nothing: no script, no font, no stylesheet."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from hfuse.roofline import Point, roof, roof_names

WIDTH, HEIGHT = 760, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 190, 20, 50  # margins: the axes' labels, and the legend on the right
COLORS = ("#e6550d", "#3b7dd8", "#2ca02c", "#9467bd", "#8c564b", "#d62728")
GREY = "#808495"


def roofline_svg(points: Sequence[Point], peak_gbs: float | None, peak_flops: float | None) -> str:
    """The chart, or "" where there is no point to draw."""
    if not points:
        return ""
    line = roof(points, peak_gbs, peak_flops)
    xs = [p.intensity for p in points] + [r.intensity for r in line]
    ys = [p.gops for p in points] + [r.gops for r in line]
    x_of = _log_scale(min(xs) / 2, max(xs) * 2, LEFT, WIDTH - RIGHT)
    y_of = _log_scale(min(ys) / 2, max(ys) * 2, HEIGHT - BOTTOM, TOP)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" font-family="sans-serif" font-size="11" role="img" '
        'aria-label="roofline: arithmetic intensity against achieved GFLOP/s">',
        f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
        'fill="none" stroke="#ccc"/>',
        *_axis_ticks(x_of, y_of, min(xs) / 2, max(xs) * 2, min(ys) / 2, max(ys) * 2),
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 10}" text-anchor="middle" fill="{GREY}">'
        "arithmetic intensity (FLOP per byte)</text>",
        f'<text transform="translate(16 {(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)" text-anchor="middle" '
        f'fill="{GREY}">achieved GFLOP/s</text>',
    ]
    if line:
        path = " ".join(f"{x_of(r.intensity):.1f},{y_of(r.gops):.1f}" for r in line)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#888" stroke-dasharray="4 3"/>')
        for at, text in roof_names(line, peak_gbs, peak_flops):
            parts.append(
                f'<text x="{x_of(at.intensity) + 6:.1f}" y="{y_of(at.gops) - 8:.1f}" fill="{GREY}">'
                f"{_e(text)}</text>"
            )
    candidates = list(dict.fromkeys(p.candidate for p in points))
    color = {c: COLORS[i % len(COLORS)] for i, c in enumerate(candidates)}
    for p in points:
        tip = f"{p.label} ({p.candidate}): {p.intensity:.3g} FLOP per byte, {p.gops:,.1f} GFLOP/s"
        parts.append(
            f'<circle cx="{x_of(p.intensity):.1f}" cy="{y_of(p.gops):.1f}" r="5" fill="{color[p.candidate]}">'
            f"<title>{_e(tip)}</title></circle>"
        )
    for i, candidate in enumerate(candidates):
        y = TOP + 10 + 18 * i
        parts.append(f'<circle cx="{WIDTH - RIGHT + 16}" cy="{y}" r="5" fill="{color[candidate]}"/>')
        parts.append(f'<text x="{WIDTH - RIGHT + 26}" y="{y + 4}">{_e(candidate)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _log_scale(low: float, high: float, start: float, end: float):
    span = math.log10(high) - math.log10(low)
    return lambda v: start + (math.log10(v) - math.log10(low)) / span * (end - start)


def _axis_ticks(x_of, y_of, x_low: float, x_high: float, y_low: float, y_high: float) -> list[str]:
    """A grid line and a label at each power of ten inside the axes' ranges."""
    parts = []
    for power in _powers(x_low, x_high):
        x = x_of(power)
        parts.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{HEIGHT - BOTTOM}" stroke="#eee"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle" fill="{GREY}">'
            f"{_tick(power)}</text>"
        )
    for power in _powers(y_low, y_high):
        y = y_of(power)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{GREY}">{_tick(power)}</text>'
        )
    return parts


def _powers(low: float, high: float) -> list[float]:
    return [10.0**k for k in range(math.ceil(math.log10(low)), math.floor(math.log10(high)) + 1)]


def _tick(value: float) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def _e(text: str) -> str:
    return html.escape(text, quote=True)
