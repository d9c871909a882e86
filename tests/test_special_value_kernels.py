"""Where Triton computes otherwise than torch on the GPU, as small fusions: shifts by any amount, integer
scalars beyond an Int32 tensor's range, -0.0 constants, fmod and remainder of floats, addcmul at the edge
of overflow, and casts to fp8.

In the interpreter every case is compared with torch (the reference). What only the GPU would get wrong
is checked on the kernel's source: a shift by a constant beyond the width (a compile error there, and an
undefined shift by a tensor amount), a -0.0 literal (Triton 3.6 builds it as +0.0), Triton's % of floats
(LLVM's frem, inexact on the GPU), a multiply and add that the GPU fuses into an fma, and Triton's fp8
conversions (saturating on the GPU).
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from codegen_harness import run, whole_group
from special_sweep import _Case, _dividing_by_zero, mismatches, on_device
from test_special_value_fixes import _binary, _with_scalar

from hfuse.codegen import emit, generate
from hfuse.codegen.emit import NEGATIVE_ZERO
from hfuse.codegen.mathlib import helpers_for
from hfuse.dtypes import DataType
from hfuse.ir import Op
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind

F64, F32, F16 = DataType.Double, DataType.Float, DataType.Half
I64, I32, BOOL = DataType.Int, DataType.Int32, DataType.Bool
E4M3, E5M2 = DataType.Float8_e4m3fn, DataType.Float8_e5m2
NAN, INF = math.nan, math.inf
F32_MAX, F64_MAX = torch.finfo(torch.float32).max, torch.finfo(torch.float64).max
LEFT, RIGHT, LOGICAL = Op.BITWISE_LEFT_SHIFT, Op.BITWISE_RIGHT_SHIFT, Op.LOGICAL_RIGHT_SHIFT


def _symbolic(op: Op, dtype: DataType, values: list, scalar, kind: DataType):
    def build(c: _Case) -> None:
        x, s = c.tensor(values, dtype), c.symbolic(scalar, kind)
        c.output(c.b.op(op, x, s), f"{op.frontend_name} with symbolic {scalar!r}")

    return build


def _then_reciprocal(make):
    """`make(c)` (a value holding -0.0), then 1 / it: the sign of the zero shows as -inf."""

    def build(c: _Case) -> None:
        c.output(c.b.op(Op.RECIPROCAL, make(c)), "reciprocal")

    return build


def _addcmul(dtype: DataType, x: list, t1: list, t2: list, v: list):
    def build(c: _Case) -> None:
        operands = [c.tensor(values, dtype) for values in (x, t1, t2, v)]
        c.output(c.b.op(Op.ADDCMUL, *operands), f"addcmul of {dtype.name}")

    return build


def _addcmul_with_scalar(dtype: DataType, x: list, t1, t2: list, v: list):
    """addcmul with a Double constant as tensor1."""

    def build(c: _Case) -> None:
        operands = [c.tensor(x, dtype), c.b.const(t1, F64), c.tensor(t2, dtype), c.tensor(v, dtype)]
        c.output(c.b.op(Op.ADDCMUL, *operands), f"addcmul of {dtype.name} with {t1!r}")

    return build


def _cast(source: DataType, values: list, target: DataType):
    def build(c: _Case) -> None:
        c.output(c.b.cast(c.tensor(values, source), target), f"cast({source.name}, {target.name})")

    return build


INT32_VALUES = [0, 1, -1, 7, -7, 2**31 - 1, -(2**31)]
INT64_VALUES = [0, 1, -1, 7, -7, 2**63 - 1, -(2**63)]
INT64_AMOUNTS = [-(2**63), -(2**40), -1, 0, 1, 31, 32, 63, 64, 2**40, 2**63 - 1]
INT32_AMOUNTS = [-(2**31), -7, -1, 0, 1, 31, 32, 2**31 - 1]
SHIFTS = {
    **{
        f"{op.frontend_name}({dtype.name}, {amount!r})": _with_scalar(op, dtype, values, amount, I64)
        for op in (LEFT, RIGHT, LOGICAL)
        for dtype, values in ((I64, INT64_VALUES), (I32, INT32_VALUES))
        for amount in (2**40, -(2**40), 2**63 - 1, -(2**63), -7, 31, 32, 63, 64)
    },
    **{
        f"{op.frontend_name}(-7, {dtype.name} amounts)": _with_scalar(op, dtype, amounts, -7, I64, True)
        for op in (LEFT, RIGHT, LOGICAL)
        for dtype, amounts in ((I64, INT64_AMOUNTS), (I32, INT32_AMOUNTS))
    },
    **{
        f"{op.frontend_name}(Int32, Int amounts)": _binary(
            op, (I32, [1, -1, 7, -(2**31)] * 3), (I64, INT64_AMOUNTS + [5])
        )
        for op in (LEFT, RIGHT, LOGICAL)
    },
    **{
        f"{op.frontend_name}(Int32, Int32 amounts)": _binary(
            op, (I32, [1, -1, -5] * 3), (I32, INT32_AMOUNTS + [2])
        )
        for op in (LEFT, RIGHT, LOGICAL)
    },
    **{
        f"{op.frontend_name}(Int32, symbolic {amount!r})": _symbolic(op, I32, INT32_VALUES, amount, I64)
        for op in (LEFT, RIGHT, LOGICAL)
        for amount in (2**40 + 3, -7, 2**63 - 1)
    },
}

# an Int scalar beyond Int32 converts to Int32 as torch converts it (wraps), before the op
WRAPPED = {
    f"{op.frontend_name}(Int32, {scalar!r})": _with_scalar(op, I32, [0, 1, -1, 9, -9, 2**31 - 1], scalar, I64)
    for op in (Op.REMAINDER, Op.MOD, Op.FMOD, Op.DIV)
    for scalar in (2**40 + 3, -(2**40) + 5, -(2**63) + 7, 2**63 - 7)
}

NEGATIVE_ZEROS = {
    "truediv(Float, -0.0)": _with_scalar(Op.TRUEDIV, F32, [1.0, -1.0, 0.0, INF, NAN], -0.0, F64),
    "truediv(Double, -0.0)": _with_scalar(Op.TRUEDIV, F64, [1.0, -1.0, 0.0, -INF, 1e-300], -0.0, F64),
    "truediv(Half, -0.0)": _with_scalar(Op.TRUEDIV, F16, [1.0, -2.0, 65504.0], -0.0, F64),
    "truediv(Int, -0.0)": _with_scalar(Op.TRUEDIV, I64, [1, -1, 2**40], -0.0, F64),
    "atan2(Double, -0.0)": _with_scalar(Op.ATAN2, F64, [0.0, -0.0, 1.0, -1.0], -0.0, F64),
    "atan2(-0.0, Double)": _with_scalar(Op.ATAN2, F64, [0.0, -0.0, 1.0, -1.0], -0.0, F64, True),
    "pow(-0.0, Float)": _with_scalar(Op.POW, F32, [-3.0, -2.0, -1.0, 0.5, 3.0], -0.0, F64, True),
    "pow(-0.0, Int)": _with_scalar(Op.POW, I64, [-3, -2, 3], -0.0, F64, True),
    "mul(Float, -0.0)": _then_reciprocal(
        lambda c: c.b.op(Op.MUL, c.tensor([1.0, 2.0], F32), c.b.const(-0.0))
    ),
    "logical_and(Double, -0.0)": _with_scalar(Op.LOGICAL_AND, F64, [0.0, 1.0, NAN], -0.0, F64),
    "eq(Float, -0.0)": _with_scalar(Op.EQ, F32, [0.0, -0.0, 1.0], -0.0, F64),
    "where(Bool, Float, -0.0)": _then_reciprocal(
        lambda c: c.b.op(Op.WHERE, c.tensor([True, False], BOOL), c.tensor([2.0, 3.0], F32), c.b.const(-0.0))
    ),
    "full(-0.0, Double)": _then_reciprocal(
        lambda c: c.b.op(
            Op.ADD, c.tensor([-0.0, -0.0], F64), c.b.op(Op.FULL, c.b.const(-0.0), shape=[2], dtype=F64)
        )
    ),
    "pad(Float, -0.0)": _then_reciprocal(
        lambda c: c.b.op(Op.PAD, c.tensor([1.0, 2.0], F32), c.b.const(-0.0), pad_widths=[1, 1])
    ),
}

DOUBLE_DIVIDENDS = [1e300, -1e300, F64_MAX, 5e291, INF, -INF, NAN, 5.0, -7.5, -0.0, 5e-324]
FLOAT_DIVIDENDS = [F32_MAX, -F32_MAX, 1e30, 1e10, INF, NAN, -2.5, 1e-45]
REMAINDERS = {
    **{
        f"{op.frontend_name}(Double, {scalar!r})": _with_scalar(op, F64, DOUBLE_DIVIDENDS, scalar, kind)
        for op in (Op.FMOD, Op.MOD, Op.REMAINDER)
        for scalar, kind in (
            (2.5, F64),
            (-7.0, F64),
            (1e30, F64),
            (INF, F64),
            (-INF, F64),
            (31, I64),
        )
    },
    **{
        f"{op.frontend_name}(Float, {scalar!r})": _with_scalar(op, F32, FLOAT_DIVIDENDS, scalar, kind)
        for op in (Op.FMOD, Op.MOD, Op.REMAINDER)
        for scalar, kind in ((2.5, F64), (-7.0, F64), (31, I64), (INF, F64))
    },
    **{
        f"{op.frontend_name}({scalar!r}, Float)": _with_scalar(
            op, F32, [1.5, -2.5, 3.0, INF, -INF, NAN, 7e-3], scalar, kind, True
        )
        for op in (Op.FMOD, Op.MOD, Op.REMAINDER)
        for scalar, kind in ((2**40, I64), (-(2**63), I64), (1e30, F64), (-7, I64), (True, BOOL))
    },
    **{
        f"{op.frontend_name}(Double, Double)": _binary(
            op,
            (F64, [INF, INF, -INF, 2.0, -2.0, 1e290, -0.0, NAN, 5.0]),
            (F64, [INF, 2.0, 3.0, INF, -INF, 3e-5, 3.0, 1.0, NAN]),
        )
        for op in (Op.FMOD, Op.REMAINDER)
    },
    **{
        f"{op.frontend_name}(Int, 2.5)": _with_scalar(op, I64, [2**40, -(2**40), 2**63 - 1, 7, -7], 2.5, F64)
        for op in (Op.FMOD, Op.REMAINDER)
    },
    **{
        f"{op.frontend_name}(Float, Int32)": _binary(
            op, (F32, [F32_MAX, -F32_MAX, 1e30, INF]), (I32, [31, -7, 2**31 - 1, 3])
        )
        for op in (Op.FMOD, Op.REMAINDER)
    },
}

ADDCMULS = {
    "addcmul(Float) at overflow": _addcmul(
        F32,
        [-INF, INF, 1.0, -INF, 3.0, NAN],
        [1.0, -1.0, 3e38, 2.0, 2.0, 1.0],
        [F32_MAX, F32_MAX, 3e38, NAN, 1.5, F32_MAX],
        [F32_MAX, F32_MAX, 1.0, 1.0, 2.0, F32_MAX],
    ),
    "addcmul(Double) at overflow": _addcmul(
        F64,
        [-INF, INF, -F64_MAX, 2.0],
        [1.0, -1.0, 1.0, 3.0],
        [F64_MAX, F64_MAX, F64_MAX, 4.0],
        [F64_MAX, F64_MAX, 2.0, 0.5],
    ),
    "addcmul(Half) with 1e30": _addcmul_with_scalar(
        F16, [-INF, 1.0, INF], 1e30, [65504.0, 2.0, -65504.0], [65504.0, 1.0, 65504.0]
    ),
    "addcmul(Int)": _addcmul(I64, [1, -5, 2**62], [3, 2**31, 2], [4, 2**31, 2], [2, -1, 2**60]),
}

# each type's largest value, the ties and the values beyond it, NaN and infinities, denormals and ties
FP8_E4M3_VALUES = [
    *(448.0, 449.0, 464.0, 464.0001, 479.0, 480.0, 1e6, INF, -INF, NAN, -500.0),
    *(2.0**-9, 2.0**-10, 3 * 2.0**-10, 1.0625, 1.1875, 0.0, -0.0, 2.0**-6, 0.0146484375),
]
FP8_E5M2_VALUES = [
    *(57344.0, 61439.0, 61440.0, 65504.0, 1e6, INF, -INF, NAN, -61440.0),
    *(2.0**-16, 2.0**-17, 3 * 2.0**-17, 1.125, 1.375, 0.0, -0.0, 2.0**-14),
]
CASTS = {
    **{
        f"cast({source.name}, {target.name})": _cast(source, values, target)
        for target, values in ((E4M3, FP8_E4M3_VALUES), (E5M2, FP8_E5M2_VALUES))
        for source in (F32, F64)
    },
    "cast(Half, Float8_e5m2)": _cast(F16, [65504.0, 61440.0, INF, NAN, 2.0**-16], E5M2),
    "cast(Int, Float8_e4m3fn)": _cast(I64, [2**63 - 1, 464, 465, -1000, 7], E4M3),
    # 16 values: a masked load of fp8 (other=0) fails in the interpreter, which cannot cast 0 to fp8
    "cast(Float8_e5m2, Float)": _cast(E5M2, [INF, -INF, NAN, 57344.0, -(2.0**-16), 1.5, -0.0, 0.25] * 2, F32),
    "cast(Float8_e4m3fn, Double)": _cast(E4M3, [NAN, 448.0, -448.0, 2.0**-9, -NAN, 0.0, 1.0, -3.5] * 2, F64),
    "cast(cast(Float, e5m2), Float)": lambda c: c.output(
        c.b.cast(c.b.cast(c.tensor([1e6, NAN, -INF, 3.0], F32), E5M2), F32), "round trip"
    ),
}

CASES = {**SHIFTS, **WRAPPED, **NEGATIVE_ZEROS, **REMAINDERS, **ADDCMULS, **CASTS}


@pytest.mark.parametrize("build", list(CASES.values()), ids=list(CASES))
def test_the_kernel_agrees_with_torch(build):
    c = _Case()
    build(c)
    assert not mismatches(c.build())


# ------------------------------------------------------------------------------- kernel source


def _sources(build) -> tuple[str, DataType]:
    """The case's generated modules, and the dtype of its (first) output."""
    c = _Case()
    build(c)
    case = c.build()
    source = "\n".join(
        generate(g, case.fusion).source for g in segment(case.fusion).groups if g.kind.launches_kernel
    )
    return source, case.fusion.value(case.fusion.outputs[0].name).dtype


def _source(build) -> str:
    return _sources(build)[0]


_KERNEL = re.compile(r"^def hfuse_.*?(?=^def _expect)", re.DOTALL | re.MULTILINE)


def _kernels(build) -> str:
    """The kernel functions of the case's generated modules, without the helpers and the launch code."""
    return "\n".join(_KERNEL.findall(_source(build)))


_SHIFT = re.compile(r"(<<|>>) (tl\.cast\()?")


@pytest.mark.parametrize("build", list(SHIFTS.values()), ids=list(SHIFTS))
def test_no_shift_is_by_an_amount_outside_the_width(build):
    """A constant amount is within [0, width) (Triton refuses a larger one on the GPU, and a negative one is
    undefined there); a tensor amount is clamped into the range by a tl.where first."""
    source, out = _sources(build)
    kernels = "\n".join(_KERNEL.findall(source))
    for shift in _SHIFT.finditer(kernels):
        amount = kernels[shift.end() :]
        constant = re.match(r"-?\d+", amount)
        in_width = constant is not None and 0 <= int(constant[0]) < (32 if out is I32 else 64)
        assert amount.startswith("tl.where(") or in_width, amount[:40]


@pytest.mark.parametrize(
    ("build", "kept", "given"),
    [
        (_with_scalar(Op.REMAINDER, I32, [5], 2**40 + 3, I64), "3", "1099511627779"),
        (_with_scalar(Op.DIV, I32, [5], 2**63 - 7, I64), "-7", "9223372036854775801"),
        (_with_scalar(Op.FMOD, I32, [5], -(2**63) + 7, I64), "7", "-9223372036854775801"),
        (_with_scalar(LEFT, I32, [5], 2**40 + 3, I64), "3", "1099511627779"),
    ],
    ids=["remainder", "div", "fmod", "bitwise_left_shift"],
)
def test_an_int_scalar_beyond_int32_is_written_as_torch_converts_it(build, kept, given):
    kernels = _kernels(build)
    assert re.search(rf"(?<![\w.]){re.escape(kept)}\b", kernels) and given not in kernels


_NEGATIVE_ZERO_LITERAL = re.compile(r"(?<![\w.])-0\.0(?!\d)")


@pytest.mark.parametrize("build", list(NEGATIVE_ZEROS.values()), ids=list(NEGATIVE_ZEROS))
def test_a_negative_zero_constant_is_written_from_its_bits(build):
    kernels = _kernels(build)
    assert NEGATIVE_ZERO in kernels and not _NEGATIVE_ZERO_LITERAL.search(kernels)


@pytest.mark.parametrize("op", [Op.FMOD, Op.MOD, Op.REMAINDER], ids=lambda op: op.frontend_name)
@pytest.mark.parametrize("dtype", [F64, F32, F16], ids=lambda d: d.name)
def test_a_float_remainder_is_libdevice_fmod_on_the_gpu(op, dtype):
    build = _with_scalar(op, dtype, [1.0, 2.0], 2.5, F64)
    kernels = _kernels(build)
    assert "%" not in kernels and ("_fmod(" in kernels or "_float_remainder(" in kernels)
    assert "libdevice.fmod(a.to(tl.float64), b.to(tl.float64))" in _source(build)


@pytest.mark.parametrize("op", [Op.FMOD, Op.MOD, Op.REMAINDER], ids=lambda op: op.frontend_name)
def test_an_integer_remainder_stays_triton_s_remainder(op):
    source = _source(_with_scalar(op, I64, [7, -7], 3, I64))
    assert "%" in source and "_fmod" not in source


def test_the_float_remainder_brings_the_fmod_of_its_place():
    source = helpers_for("r = _float_remainder(a, b)")
    assert "def _float_remainder(a, b)" in source
    assert source.count("def _fmod(a, b)") == 2  # the interpreter's and the GPU's


@pytest.mark.parametrize("dtype", [F64, F32, F16], ids=lambda d: d.name)
def test_a_float_addcmul_chooses_its_sum_where_the_product_overflows(dtype):
    """On the GPU the multiply and add of x + v * p fuse into an fma (rounded once), which keeps an
    overflowing product finite: the kernel's sum must not depend on that."""
    build = _addcmul(dtype, [1.0], [2.0], [3.0], [4.0])
    assert "_addcmul(" in _kernels(build)
    assert 'tl.where(tl.abs(p) == float("inf"), at_infinity, x + p)' in _source(build)


_FP8_CONVERSION = re.compile(r"\.to\(tl\.float8e(4nv|5)\)|tl\.cast\([^()]*,\s*tl\.float8e(4nv|5)\)")


@pytest.mark.parametrize("build", list(CASTS.values()), ids=list(CASTS))
def test_fp8_values_are_encoded_from_their_bits(build):
    """Triton's conversions to fp8 saturate on the GPU: no kernel converts a value to fp8, it bitcasts
    the bits that torch's conversion gives."""
    assert not _FP8_CONVERSION.search(_source(build))


# ---------------------------------------------------------------------------------- fp8, bit for bit


def _fp8_bits(values: list[float], target: DataType) -> torch.Tensor:
    """The bits of the kernel's cast of Float `values` to `target`."""
    c = _Case()
    x = c.tensor(values, F32)
    c.output(c.b.cast(x, target), "cast")
    case = c.build()
    group = whole_group(case.fusion, SchedulerKind.POINTWISE)
    (out,) = run(group, case.fusion, {x.name: on_device(case.inputs[0])}).values()
    return out.cpu().view(torch.uint8)


@pytest.mark.parametrize(
    ("target", "values"), [(E4M3, FP8_E4M3_VALUES), (E5M2, FP8_E5M2_VALUES)], ids=["e4m3fn", "e5m2"]
)
def test_an_fp8_cast_gives_torch_s_bits(target, values):
    want = torch.tensor(values, dtype=torch.float32).to(target.torch).view(torch.uint8)
    assert torch.equal(_fp8_bits(values, target), want)


def test_every_float_that_rounds_to_each_fp8_value_gives_torch_s_bits():
    """All fp8 values and the midpoints between neighbours (ties to even), each nudged up and down."""
    for target in (E4M3, E5M2):
        grid = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(target.torch).float()
        grid = grid[~grid.isnan()].sort().values
        middles = (grid[1:] + grid[:-1]) / 2
        values = torch.cat([grid, middles, middles.nextafter(grid[1:]), middles.nextafter(grid[:-1])])
        want = values.to(target.torch).view(torch.uint8)
        assert torch.equal(_fp8_bits(values.tolist(), target), want), target


# torch's Float8_e4m3fn(float) gives NaN beyond the largest value up to torch 2.11 (as on the GPU machine)
# and saturates to 448 since: the kernel follows the torch it runs with.
E4M3_BEYOND = [448.0, 464.0, 464.0001, 479.0, 480.0, 1e6, INF, -INF, -464.0001, NAN]
E4M3_BY_TORCH = {
    0x7F: [448.0, 448.0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
    0x7E: [448.0, 448.0, 448.0, 448.0, 448.0, 448.0, 448.0, -448.0, -448.0, NAN],
}


@pytest.mark.parametrize("overflow", list(E4M3_BY_TORCH), ids=["torch 2.11: NaN", "later: saturated"])
def test_an_e4m3fn_cast_beyond_its_range_is_what_torch_gives(overflow, monkeypatch):
    monkeypatch.setattr(emit, "e4m3fn_overflow", lambda: overflow)
    got = _fp8_bits(E4M3_BEYOND, E4M3).view(torch.float8_e4m3fn).float()
    torch.testing.assert_close(got, torch.tensor(E4M3_BY_TORCH[overflow]), equal_nan=True, rtol=0, atol=0)


def test_the_e4m3fn_overflow_is_the_installed_torch_s():
    saturates = not torch.tensor(1e6).to(torch.float8_e4m3fn).float().isnan()
    assert emit.e4m3fn_overflow() == (0x7E if saturates else 0x7F)


# ------------------------------------------------------------------------------------------ sweep


@pytest.mark.parametrize(
    ("op", "out", "divisor", "by_zero"),
    [
        (Op.REMAINDER, I32, 2**40, True),
        (Op.DIV, I32, -(2**63), True),
        (Op.FMOD, I32, 2**40 + 3, False),
        (Op.REMAINDER, I64, 2**40, False),
        (Op.MOD, F32, 0, False),
    ],
)
def test_a_divisor_counts_as_torch_converts_it_to_the_result_s_type(op, out, divisor, by_zero):
    assert _dividing_by_zero(op, out, divisor) is by_zero
