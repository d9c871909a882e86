"""A run's kernel table as CSV: one row a segment, numbers in fixed units, empty where not measured."""

from __future__ import annotations

import csv
import io

from hfuse.runtime.profile_model import FusionProfile

COLUMNS = (
    "kernel",
    "segment",
    "scheduler",
    "launches",
    "grid",
    "warps",
    "time_ms",
    "input_bytes",
    "output_bytes",
    "gb_per_s",
    "percent_of_peak",
    "compile_ms",
    "flops",
)


def kernel_table_csv(profile: FusionProfile) -> str:
    """Every segment of the run (kernels, and the alias and torch segments that launch none), as the Run
    page's kernel table lists them."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for k in profile.segment_profiles:
        writer.writerow(
            (
                k.name,
                k.segment_id,
                k.scheduler,
                k.launches,
                "x".join(map(str, k.grid)),
                k.num_warps or "",
                "" if k.time_ms is None else k.time_ms,
                k.input_bytes,
                k.output_bytes,
                "" if k.effective_bandwidth_gbs is None else k.effective_bandwidth_gbs,
                "" if k.percentage_peak_bandwidth is None else k.percentage_peak_bandwidth,
                "" if profile.cache_hit else k.compile_time_ms,
                k.flops,
            )
        )
    return out.getvalue()
