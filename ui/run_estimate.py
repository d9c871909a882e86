"""How long a run in Triton's interpreter should take, for the Run page's progress bar.

The interpreter runs a kernel's grid one program at a time, so a run's time grows with the programs its
kernels launch. The estimate is a fixed start (loading, the check against torch) plus the programs times
the seconds one program took in this server's runs before (about 5 ms each before any run).
"""

from __future__ import annotations

import math

import streamlit as st

from hfuse.pipeline import Compiled

START_S = 1.0
FIRST_S_PER_PROGRAM = 0.005
MEASURED_FROM_PROGRAMS = 20  # runs of fewer programs say little about one program's time
SMOOTHING = 0.5  # the weight of the newest run in the rate


@st.cache_resource(show_spinner=False)
def _rate() -> dict[str, float]:
    """Seconds per program, shared by the sessions of this server and updated after each run."""
    return {"s_per_program": FIRST_S_PER_PROGRAM}


def programs(compiled: Compiled) -> int:
    """Programs the kernels of one call launch (a split reduction's every launch counted as its first)."""
    return sum(math.prod(kernel.grid) * kernel.launches for kernel in compiled.kernels)


def expected_s(compiled: Compiled) -> float:
    return START_S + programs(compiled) * _rate()["s_per_program"]


def record(compiled: Compiled, seconds: float) -> None:
    """Learn the rate from a finished run of `compiled` that took `seconds`."""
    count = programs(compiled)
    if count < MEASURED_FROM_PROGRAMS:
        return
    rate = _rate()
    measured = max(seconds - START_S, 0.0) / count
    rate["s_per_program"] = SMOOTHING * measured + (1 - SMOOTHING) * rate["s_per_program"]
