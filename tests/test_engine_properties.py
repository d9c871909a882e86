"""Random small fusions run end to end (passes, segmentation, generated kernels, runtime) under both
segmentation strategies, with and without aliased outputs, and match the torch reference."""

from __future__ import annotations

import os

import pytest
from engine_check import check_engine
from hypothesis import HealthCheck, given, note, settings
from random_fusions import BF16, F16, F32, THRESHOLD, fusions
from segment_cases import Builder

from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.printer import print_fusion

# More examples: HFUSE_TEST_EXAMPLES (the GPU campaign at GPU sizes is `make gpu-fuzz`).
EXAMPLES = int(os.environ.get("HFUSE_TEST_EXAMPLES", "60"))


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(fusion=fusions())
def test_random_fusions_match_the_reference_under_every_strategy(fresh_cache, device, fusion):
    note(print_fusion(fusion))
    check_engine(fusion, device)


# ---- fusions the random search once failed on, reduced by hand ---------------------------------


def _scalar_between_kernels() -> Fusion:
    """A 0-dim tensor written by one kernel and read by the next (naive gives each op a kernel)."""
    b = Builder()
    total = b.sum(b.define_tensor((4, 2), F16), [0, 1])
    b.add_output(b.op(Op.LE, total, b.const(0.0)))
    return b.build()


def _casts_to_reduced_floats() -> Fusion:
    """int64, int32 and bool cast to bfloat16 and half."""
    b = Builder()
    for dtype in (DataType.Int, DataType.Int32, DataType.Bool):
        x = b.define_tensor((5,), dtype)
        b.add_output(b.cast(x, BF16))
        b.add_output(b.cast(x, F16))
    return b.build()


def _keepdim_reduction_of_one_element() -> Fusion:
    """Every extent is 1: the row value is stored through a pointer that is not a block."""
    b = Builder()
    x = b.define_tensor((1,), F32)
    b.add_output(b.sum(x, [0], keepdim=True))
    return b.build()


def _reduced_float_results_read_as_float() -> Fusion:
    """bfloat16 and half results (of an op, a pad with a symbolic fill, a constant fill) are rounded to
    their type before a Float op reads them, as torch rounds them."""
    b = Builder()
    x, fill = b.define_tensor((3,), BF16), b.define_scalar(DataType.Double)
    grown = b.op(Op.ADD, b.op(Op.ABS, x), b.const(1.0))
    padded = b.op(Op.PAD, x, fill, pad_widths=[1, 1])
    full = b.op(Op.FULL, b.const(1.2345), shape=[3], dtype=F16)
    b.add_output(b.op(Op.ADD, b.cast(grown, F32), b.cast(full, F32)))
    b.add_output(b.cast(padded, F32))
    return b.build()


def _casts_of_a_symbolic_scalar() -> Fusion:
    """A scalar argument is a Python number in the interpreter: it has no `.to`."""
    b = Builder()
    x, s = b.define_tensor((3,), F32), b.define_scalar(DataType.Double)
    b.add_output(b.op(Op.ADD, x, b.cast(s, BF16)))
    b.add_output(b.op(Op.ADD, x, b.cast(s, DataType.Int)))
    return b.build()


def _subnormal_bound_in_a_looped_softmax() -> Fusion:
    """A float32 subnormal constant: Triton types the number as a float64, which widened the block and
    changed the type of the loop-carried row maximum (a compile error on the GPU)."""
    b = Builder()
    x = b.op(Op.MINIMUM, b.define_tensor((512, 64), F32), b.const(-5.877471754111438e-39))
    peak = b.op(Op.MAX, x, dims=[0], keepdim=True)
    e = b.op(Op.EXP, b.op(Op.SUB, x, peak))
    b.add_output(b.op(Op.DIV, e, b.sum(e, [0], keepdim=True)))
    return b.build()


def _mean_of_infinities() -> Fusion:
    """torch's Welford mean is NaN where a reduced element is infinite; a sum divided by the count is not."""
    b = Builder()
    x = b.op(Op.ADD, b.define_tensor((3, 7), F32), b.const(float("-inf")))
    var, mean = b.add(Op.VAR_MEAN, [x], {"dims": [0, 1], "correction": 0, "keepdim": True})
    b.add_output(b.cast(mean, BF16))
    b.add_output(var)
    return b.build()


def _pad_with_the_largest_int64() -> Fusion:
    """An integer fill is exact (the reference once passed it through a double: 2**63 - 1 became -2**63)."""
    b = Builder()
    x = b.define_tensor((8,), DataType.Int)
    b.add_output(b.op(Op.PAD, x, b.const(2**63 - 1, DataType.Int), pad_widths=[-1, 2]))
    return b.build()


def _cat_along_the_programs_dim() -> Fusion:
    """A cat along a dim that a transpose kernel's programs walk: which piece is read is a test of the
    program's position (a 0-d value), which the interpreter would not take in a load's mask."""
    b = Builder()
    x = b.define_tensor((1, 1, 2, 3), F32, (6, 1, 1, 2))
    b.add_output(b.op(Op.CAT, x, x, dim=0))
    return b.build()


def _pad_of_one_element_to_its_fill() -> Fusion:
    """A one-element result stored through a scalar pointer: its pad test must stay a number, not a block."""
    b = Builder()
    x = b.define_tensor((1,), F32)
    b.add_output(b.op(Op.PAD, x, b.const(float("inf")), pad_widths=[1, -1]))
    return b.build()


def _mean_of_the_largest_values_and_a_small_one() -> Fusion:
    """[0.5, max, max]: differences from the first element overflow, and so does the plain sum; torch's
    Welford mean is finite."""
    b = Builder()
    x = b.define_tensor((3,), F32)
    large = b.op(Op.WHERE, b.op(Op.GT, x, b.const(THRESHOLD)), x, b.const(3.4028234663852886e38))
    b.add_output(b.add(Op.VAR_MEAN, [large], {"dims": [0], "correction": 0, "keepdim": False})[1])
    return b.build()


def _addcmul_onto_one_broadcast_element() -> Fusion:
    """addcmul whose x is one element broadcast: read as a number, which the math helper must widen."""
    b = Builder()
    x, t = b.define_tensor((1,), F32, (0,)), b.define_tensor((2,), F32)
    b.add_output(b.op(Op.ADDCMUL, b.bcast(x, (2,), [0]), t, t, b.const(0.5)))
    return b.build()


def _pad_along_a_programs_dim_and_a_tiled_one() -> Fusion:
    """A pad test of a program's position beside one of a tile's: each a block before they are joined."""
    b = Builder()
    x = b.define_tensor((2, 1, 2), DataType.Int, (1, 2, 2))
    b.add_output(b.op(Op.PAD, x, b.const(2**63 - 1, DataType.Int), pad_widths=[0, 1, 0, 1]))
    return b.build()


def _softmax_of_rows_of_one_expanded_value() -> Fusion:
    """Rows that are one value expanded (stride 0): a block of columns adds a block's worth of exp to the
    running sum, though the value is read once a row."""
    b = Builder()
    x = b.define_tensor((2, 8192), F32, (1, 0))
    b.add_output(b.softmax(x, 1))
    return b.build()


REGRESSIONS = [
    ("scalar_between_kernels", _scalar_between_kernels),
    ("casts_to_reduced_floats", _casts_to_reduced_floats),
    ("keepdim_reduction_of_one_element", _keepdim_reduction_of_one_element),
    ("reduced_float_results_read_as_float", _reduced_float_results_read_as_float),
    ("casts_of_a_symbolic_scalar", _casts_of_a_symbolic_scalar),
    ("subnormal_bound_in_a_looped_softmax", _subnormal_bound_in_a_looped_softmax),
    ("mean_of_infinities", _mean_of_infinities),
    ("pad_with_the_largest_int64", _pad_with_the_largest_int64),
    ("cat_along_the_programs_dim", _cat_along_the_programs_dim),
    ("pad_of_one_element_to_its_fill", _pad_of_one_element_to_its_fill),
    ("mean_of_the_largest_values_and_a_small_one", _mean_of_the_largest_values_and_a_small_one),
    ("addcmul_onto_one_broadcast_element", _addcmul_onto_one_broadcast_element),
    ("pad_along_a_programs_dim_and_a_tiled_one", _pad_along_a_programs_dim_and_a_tiled_one),
    ("softmax_of_rows_of_one_expanded_value", _softmax_of_rows_of_one_expanded_value),
]


@pytest.mark.parametrize("make", [r[1] for r in REGRESSIONS], ids=[r[0] for r in REGRESSIONS])
def test_fusions_found_by_the_random_search_match_the_reference(fresh_cache, device, make):
    check_engine(make(), device)
