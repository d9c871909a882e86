"""The Run page's roofline chart (hfuse.roofline computes its points and roofs)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt

from hfuse.roofline import Point, roof, roof_names

ROOF_TEXT_COLOR = "#808495"  # a grey that reads on a light and a dark theme (a chart cannot read the theme)


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
    line_points = roof(points, peak_gbs, peak_flops)
    if not line_points:
        return dots
    line_rows = [{"FLOP per byte": r.intensity, "GFLOP/s": r.gops, "roof": r.roof} for r in line_points]
    name_rows = [
        {"FLOP per byte": r.intensity, "GFLOP/s": r.gops, "text": text}
        for r, text in roof_names(line_points, peak_gbs, peak_flops)
    ]
    line = (
        alt.Chart(alt.Data(values=line_rows))
        .mark_line(color="#888", strokeDash=[4, 3])
        .encode(x="FLOP per byte:Q", y="GFLOP/s:Q", tooltip=["roof:N"])
    )
    names = (
        alt.Chart(alt.Data(values=name_rows))
        .mark_text(align="left", dx=6, dy=-8, color=ROOF_TEXT_COLOR, fontSize=11)
        .encode(x="FLOP per byte:Q", y="GFLOP/s:Q", text="text:N")
    )
    return (line + names + dots).properties(height=380)
