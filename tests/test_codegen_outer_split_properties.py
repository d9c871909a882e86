"""Random column and middle-dim reductions and normalizations, at odd and even widths, through the split
schedules (partials, a combine, a flat last launch, small tiles over rows off 16-byte boundaries) under
options shrunk so that small shapes reach them, checked against the reference in Triton's interpreter."""

from __future__ import annotations

import dataclasses

from codegen_harness import SPLIT, check, generate, whole_group
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.segment.model import SchedulerKind

F32 = DataType.Float
# splits from 32 reduced rows on, into parts of at least 16, below 8 tiles of kept columns (16 with a flat
# last launch)
SHRUNK = dataclasses.replace(SPLIT, outer_tile=64, flat_split_below_programs=16)
PATTERNS = ("sum", "max_scale", "center", "batch_norm", "softmax")


def _outer_pattern(pattern: str, shape: tuple[int, ...], dim: int, dtype: DataType) -> Fusion:
    """One input of `shape` reduced over `dim` (not the innermost): its column sums, or a normalization of
    it by its column statistics cast back to `dtype`."""
    b = FusionBuilder()
    x = b.define_tensor(list(shape), dtype)
    (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
    over = {"dims": [dim], "keepdim": True}
    if pattern == "sum":
        b.add_output(b.add(Op.SUM, [xf], {"dims": [dim], "keepdim": False, "dtype": F32})[0])
        return b.build()
    if pattern == "max_scale":
        (top,) = b.add(Op.MAX, [b.add(Op.ABS, [xf])[0]], {**over, "dtype": F32})
        (y,) = b.add(Op.DIV, [xf, top])
    elif pattern == "center":
        (total,) = b.add(Op.SUM, [xf], {**over, "dtype": F32})
        (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, float(shape[dim]))])
        (y,) = b.add(Op.SUB, [xf, mean])
    elif pattern == "batch_norm":
        var, mean = b.add(Op.VAR_MEAN, [xf], {**over, "correction": 0})
        (rstd,) = b.add(Op.RSQRT, [b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])[0]])
        (y,) = b.add(Op.MUL, [b.add(Op.SUB, [xf, mean])[0], rstd])
        b.add_output(mean)
    else:
        (top,) = b.add(Op.MAX, [xf], {**over, "dtype": F32})
        (e,) = b.add(Op.EXP, [b.add(Op.SUB, [xf, top])[0]])
        (y,) = b.add(Op.DIV, [e, b.add(Op.SUM, [e], {**over, "dtype": F32})[0]])
    b.add_output(b.add(Op.CAST, [y], {"dtype": dtype})[0])
    return b.build()


@st.composite
def outer_cases(draw):
    pattern = draw(st.sampled_from(PATTERNS))
    dtype = draw(st.sampled_from([F32, DataType.BFloat16, DataType.Half]))
    reduced = draw(st.integers(33, 200))
    # mostly one tile of kept columns, odd and even widths; now and then 9-10 tiles (split only below
    # flat_split_below_programs, with a flat last launch)
    kept = draw(
        st.one_of(st.integers(1, 40), st.integers(513, 640)) if pattern != "sum" else st.integers(1, 40)
    )
    shape, dim = ((reduced, kept), 0)
    if draw(st.booleans()):
        shape, dim = ((draw(st.integers(1, 3)), reduced, kept), 1)
    options = dataclasses.replace(
        SHRUNK,
        flat_finish_min_elements=draw(st.sampled_from([1, 10**9])),
        misaligned_outer_tile=draw(st.sampled_from([0, 16, 32])),
        misaligned_outer_programs=draw(st.sampled_from([8, 64])),
        split_streaming=draw(st.booleans()),
    )
    return pattern, shape, dim, dtype, options


@settings(max_examples=25, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=outer_cases())
def test_random_outer_splits_match_the_reference(case):
    pattern, shape, dim, dtype, options = case
    fusion = _outer_pattern(pattern, shape, dim, dtype)
    kind = SchedulerKind.REDUCTION if pattern == "sum" else SchedulerKind.NORMALIZATION
    group = whole_group(fusion, kind)
    kernel = generate(group, fusion, options)
    note(f"{pattern} {dtype.name} {shape} over dim {dim}: {kernel.launches} launches, {kernel.config}")
    check(fusion, [group], options=options, reduction_size=shape[dim])
