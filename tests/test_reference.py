"""The torch reference executor, op by op, against torch called directly.

Reduced floats (Half, BFloat16) are expected to be computed in Float and rounded to the output
dtype, which is what the reference defines them to mean.
"""

import math

import pytest
import torch
import torch.nn.functional as F

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, UnsupportedError
from hfuse.ir import Op
from hfuse.ops import OPS
from hfuse.reference import evaluate, evaluate_values
from hfuse.tolerance import assert_close

FLOATS = (torch.float32, torch.float16, torch.bfloat16)


class Const:
    """An operand that becomes a constant scalar of the fusion (plain numbers become symbolic inputs)."""

    def __init__(self, value):
        self.value = value


def _scalar_dtype(number) -> DataType:
    if isinstance(number, bool):
        return DataType.Bool
    if isinstance(number, int):
        return DataType.Int
    return DataType.Double


def run(op, operands, attrs=None):
    """Builds a one-expr fusion of `op` and evaluates it; returns its outputs."""
    b = FusionBuilder()
    values, inputs = [], []
    for operand in operands:
        if isinstance(operand, torch.Tensor):
            dtype = DataType.from_torch(operand.dtype)
            values.append(b.define_tensor(operand.shape, dtype, strides=operand.stride()))
            inputs.append(operand)
        elif isinstance(operand, Const):
            values.append(b.define_scalar(_scalar_dtype(operand.value), const=operand.value))
        else:
            values.append(b.define_scalar(_scalar_dtype(operand)))
            inputs.append(operand)
    for out in b.add(op, values, attrs or {}):
        b.add_output(out)
    return evaluate(b.build(), inputs)


def sample(shape, dtype, low=-2.0, high=2.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g) * (high - low) + low).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    return torch.randint(int(low), int(high) + 1, shape, generator=g).to(dtype)


def in_float(fn, *args):
    """fn computed in Float when any tensor operand is a reduced float, rounded back to that dtype."""
    reduced = next((a.dtype for a in args if isinstance(a, torch.Tensor) and a.dtype in FLOATS[1:]), None)
    if reduced is None:
        return fn(*args)
    up = [a.float() if isinstance(a, torch.Tensor) and a.dtype in FLOATS[1:] else a for a in args]
    result = fn(*up)
    return result.to(reduced) if result.is_floating_point() else result


# op, torch function, input range
UNARY_FLOAT = [
    (Op.ABS, torch.abs, (-2, 2)), (Op.ACOS, torch.acos, (-0.9, 0.9)), (Op.ACOSH, torch.acosh, (1.1, 3)),
    (Op.ASIN, torch.asin, (-0.9, 0.9)), (Op.ASINH, torch.asinh, (-2, 2)), (Op.ATAN, torch.atan, (-2, 2)),
    (Op.ATANH, torch.atanh, (-0.9, 0.9)), (Op.CEIL, torch.ceil, (-3, 3)), (Op.COS, torch.cos, (-3, 3)),
    (Op.COSH, torch.cosh, (-2, 2)), (Op.EXP, torch.exp, (-2, 2)), (Op.EXP2, torch.exp2, (-2, 2)),
    (Op.EXPM1, torch.expm1, (-1, 1)), (Op.ERF, torch.erf, (-2, 2)), (Op.ERFC, torch.erfc, (-2, 2)),
    (Op.ERFINV, torch.erfinv, (-0.9, 0.9)), (Op.ERFCINV, lambda x: torch.erfinv(1 - x), (0.1, 1.9)),
    (Op.FLOOR, torch.floor, (-3, 3)), (Op.FRAC, torch.frac, (-3, 3)), (Op.LGAMMA, torch.lgamma, (0.5, 4)),
    (Op.LOG, torch.log, (0.1, 4)), (Op.LOG10, torch.log10, (0.1, 4)), (Op.LOG1P, torch.log1p, (-0.5, 3)),
    (Op.LOG2, torch.log2, (0.1, 4)), (Op.NEG, torch.neg, (-2, 2)),
    (Op.LOGICAL_NOT, torch.logical_not, (-1, 1)),
    (Op.RELU, torch.relu, (-2, 2)), (Op.RECIPROCAL, torch.reciprocal, (0.5, 3)),
    (Op.ROUND, torch.round, (-3, 3)),
    (Op.RSQRT, torch.rsqrt, (0.2, 4)), (Op.SET, torch.clone, (-2, 2)), (Op.SEGMENT_SET, torch.clone, (-2, 2)),
    (Op.SIGN, torch.sign, (-2, 2)), (Op.SIGMOID, torch.sigmoid, (-3, 3)),
    (Op.SIGNBIT, torch.signbit, (-2, 2)),
    (Op.SILU, F.silu, (-3, 3)), (Op.SIN, torch.sin, (-3, 3)), (Op.SINH, torch.sinh, (-2, 2)),
    (Op.SQRT, torch.sqrt, (0, 4)), (Op.TAN, torch.tan, (-1.2, 1.2)), (Op.TANH, torch.tanh, (-2, 2)),
    (Op.TRUNC, torch.trunc, (-3, 3)), (Op.ISFINITE, torch.isfinite, (-2, 2)),
    (Op.ISINF, torch.isinf, (-2, 2)),
    (Op.ISNAN, torch.isnan, (-2, 2)), (Op.ISNEGINF, torch.isneginf, (-2, 2)),
    (Op.ISPOSINF, torch.isposinf, (-2, 2)), (Op.ISREAL, torch.isreal, (-2, 2)),
    (Op.REAL, torch.real, (-2, 2)),
    (Op.IMAG, torch.zeros_like, (-2, 2)),
]  # fmt: skip
UNARY_CASES = [(op, fn, rng, dtype) for op, fn, rng in UNARY_FLOAT for dtype in FLOATS]


@pytest.mark.parametrize(
    "op, fn, rng, dtype", UNARY_CASES, ids=[f"{c[0].frontend_name}-{str(c[3])[6:]}" for c in UNARY_CASES]
)
def test_unary_float(op, fn, rng, dtype):
    x = sample((3, 5), dtype, *rng)
    if op in (Op.ISINF, Op.ISNAN, Op.ISFINITE, Op.ISPOSINF, Op.ISNEGINF):
        x[0, :3] = torch.tensor([math.inf, -math.inf, math.nan], dtype=dtype)
    (out,) = run(op, [x])
    assert_close(out, in_float(fn, x))


def test_fp8_math_rounds_from_float():
    a = sample((8,), torch.float32, -2, 2).to(torch.float8_e4m3fn)
    b = sample((8,), torch.float32, -2, 2, seed=1).to(torch.float8_e4m3fn)
    (out,) = run(Op.MUL, [a, b])
    assert torch.equal(out.float(), (a.float() * b.float()).to(torch.float8_e4m3fn).float())


def test_complex_parts():
    z = torch.complex(sample((4,), torch.float32), sample((4,), torch.float32, seed=1))
    for op, fn in ((Op.REAL, torch.real), (Op.IMAG, torch.imag), (Op.ABS, torch.abs)):
        (out,) = run(op, [z])
        assert out.dtype == torch.float32
        assert_close(out, fn(z))


UNARY_INT = [
    (Op.ABS, torch.abs, torch.int32), (Op.NEG, torch.neg, torch.int64), (Op.RELU, torch.relu, torch.int32),
    (Op.SIGN, torch.sign, torch.int64), (Op.BITWISE_NOT, torch.bitwise_not, torch.int64),
    (Op.BITWISE_NOT, torch.bitwise_not, torch.bool), (Op.LOGICAL_NOT, torch.logical_not, torch.int32),
    (Op.CEIL, torch.ceil, torch.int64), (Op.EXP, torch.exp, torch.int32), (Op.SQRT, torch.sqrt, torch.int64),
    (Op.RECIPROCAL, torch.reciprocal, torch.int32), (Op.SIGMOID, torch.sigmoid, torch.int64),
]  # fmt: skip


@pytest.mark.parametrize(
    "op, fn, dtype", UNARY_INT, ids=[f"{op.frontend_name}-{str(d)[6:]}" for op, _, d in UNARY_INT]
)
def test_unary_int(op, fn, dtype):
    x = sample((7,), dtype, 1 if op in (Op.SQRT, Op.RECIPROCAL) else -5, 5)
    (out,) = run(op, [x])
    expected = fn(x)
    assert out.dtype == expected.dtype
    assert_close(out, expected)


def _logical_right_shift(a, b):
    bits = a.element_size() * 8
    values = [
        ((x % (1 << bits)) >> s if s < bits else 0) for x, s in zip(a.tolist(), b.tolist(), strict=True)
    ]
    signed = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in values]
    return torch.tensor(signed, dtype=a.dtype)


BINARY_FLOAT = [
    (Op.ADD, torch.add), (Op.ATAN2, torch.atan2), (Op.DIV, torch.div), (Op.TRUEDIV, torch.true_divide),
    (Op.FMOD, torch.fmod), (Op.MUL, torch.mul), (Op.POW, torch.pow), (Op.REMAINDER, torch.remainder),
    (Op.SUB, torch.sub), (Op.MINIMUM, torch.minimum), (Op.MAXIMUM, torch.maximum), (Op.MOD, torch.fmod),
    (Op.EQ, torch.eq), (Op.GE, torch.ge), (Op.GT, torch.gt), (Op.LE, torch.le), (Op.LT, torch.lt),
    (Op.NE, torch.ne), (Op.LOGICAL_AND, torch.logical_and), (Op.LOGICAL_OR, torch.logical_or),
]  # fmt: skip
BINARY_FLOAT_CASES = [(op, fn, dtype) for op, fn in BINARY_FLOAT for dtype in FLOATS]


@pytest.mark.parametrize(
    "op, fn, dtype",
    BINARY_FLOAT_CASES,
    ids=[f"{c[0].frontend_name}-{str(c[2])[6:]}" for c in BINARY_FLOAT_CASES],
)
def test_binary_float_broadcasts(op, fn, dtype):
    a = sample((3, 1), dtype, 0.5, 2)
    b = sample((4,), dtype, -2, 2, seed=1)
    b[0] = a[1, 0]  # one equal pair for the comparisons
    b[b.abs() < 0.25] = 0.5
    (out,) = run(op, [a, b])
    assert_close(out, in_float(fn, a, b))


SCALAR_OPERANDS = [
    ("float-times-double", Op.MUL, torch.float32, 1.5, torch.mul),
    ("half-plus-double", Op.ADD, torch.float16, 0.1, torch.add),
    ("bf16-pow-double", Op.POW, torch.bfloat16, 2.0, torch.pow),
    ("int-plus-double", Op.ADD, torch.int64, 0.5, torch.add),
    ("int32-times-int", Op.MUL, torch.int32, 3, torch.mul),
    ("int-div-int", Op.DIV, torch.int64, 3, lambda a, b: torch.div(a, b, rounding_mode="trunc")),
    ("half-lt-double", Op.LT, torch.float16, 0.25, torch.lt),
]


@pytest.mark.parametrize(
    "op, dtype, number, fn", [c[1:] for c in SCALAR_OPERANDS], ids=[c[0] for c in SCALAR_OPERANDS]
)
def test_tensor_with_scalar(op, dtype, number, fn):
    x = sample((6,), dtype, 1, 5)
    expected = in_float(fn, x, number)
    for operand in (number, Const(number)):
        (out,) = run(op, [x, operand])
        assert out.dtype == expected.dtype
        assert_close(out, expected)


BINARY_INT = [
    (Op.ADD, torch.add), (Op.SUB, torch.sub), (Op.MUL, torch.mul),
    (Op.DIV, lambda a, b: torch.div(a, b, rounding_mode="trunc")), (Op.FMOD, torch.fmod),
    (Op.MOD, torch.fmod), (Op.REMAINDER, torch.remainder), (Op.MINIMUM, torch.minimum),
    (Op.MAXIMUM, torch.maximum), (Op.BITWISE_AND, torch.bitwise_and), (Op.BITWISE_OR, torch.bitwise_or),
    (Op.BITWISE_XOR, torch.bitwise_xor), (Op.BITWISE_LEFT_SHIFT, torch.bitwise_left_shift),
    (Op.BITWISE_RIGHT_SHIFT, torch.bitwise_right_shift), (Op.LOGICAL_RIGHT_SHIFT, _logical_right_shift),
    (Op.GCD, torch.gcd), (Op.EQ, torch.eq), (Op.GT, torch.gt), (Op.TRUEDIV, torch.true_divide),
    (Op.POW, torch.pow), (Op.ATAN2, torch.atan2),
]  # fmt: skip
BINARY_INT_CASES = [(op, fn, dtype) for op, fn in BINARY_INT for dtype in (torch.int32, torch.int64)]


@pytest.mark.parametrize(
    "op, fn, dtype", BINARY_INT_CASES, ids=[f"{c[0].frontend_name}-{str(c[2])[6:]}" for c in BINARY_INT_CASES]
)
def test_binary_int(op, fn, dtype):
    a = torch.tensor([-7, -1, 0, 5, 9, 100, -100, 3], dtype=dtype)
    b = torch.tensor([2, 3, 4, 1, 2, 7, 3, 3], dtype=dtype)
    if op in (Op.BITWISE_LEFT_SHIFT, Op.BITWISE_RIGHT_SHIFT, Op.LOGICAL_RIGHT_SHIFT):
        b = torch.tensor([0, 1, 3, 5, 2, 4, 31, 30], dtype=dtype)
    (out,) = run(op, [a, b])
    expected = fn(a, b)
    assert out.dtype == expected.dtype
    assert_close(out, expected)


def test_nextafter_steps_in_its_own_precision():
    for dtype in (torch.float32, torch.float64):
        a, b = sample((5,), dtype), sample((5,), dtype, seed=1)
        (out,) = run(Op.NEXTAFTER, [a, b])
        assert torch.equal(out, torch.nextafter(a, b))


TERNARY = [
    ("where", Op.WHERE, lambda dt: [sample((3, 1), torch.bool), sample((4,), dt), sample((3, 4), dt, seed=2)],
     lambda c, a, b: torch.where(c, a, b)),
    ("where-scalar", Op.WHERE, lambda dt: [sample((4,), torch.bool), sample((4,), dt), 0.5],
     lambda c, a, b: torch.where(c, a, torch.tensor(b, dtype=a.dtype))),
    ("lerp", Op.LERP, lambda dt: [sample((4,), dt), sample((4,), dt, seed=1), 0.3], torch.lerp),
    ("lerp-tensor-weight", Op.LERP,
     lambda dt: [sample((4,), dt), sample((4,), dt, seed=1), sample((4,), dt, 0, 1)], torch.lerp),
    ("clamp", Op.CLAMP, lambda dt: [sample((8,), dt), -0.5, 0.75], torch.clamp),
    ("threshold", Op.THRESHOLD, lambda dt: [sample((8,), dt), 0.1, 20.0], F.threshold),
    ("addcmul", Op.ADDCMUL,
     lambda dt: [sample((2, 4), dt), sample((4,), dt, seed=1), sample((2, 1), dt, seed=2), 0.5],
     lambda x, t1, t2, v: torch.addcmul(x, t1, t2, value=v)),
]  # fmt: skip
TERNARY_CASES = [(c, dtype) for c in TERNARY for dtype in FLOATS]


@pytest.mark.parametrize("case, dtype", TERNARY_CASES, ids=[f"{c[0]}-{str(d)[6:]}" for c, d in TERNARY_CASES])
def test_ternary(case, dtype):
    _, op, make, fn = case
    operands = make(dtype)
    (out,) = run(op, operands)
    assert_close(out, in_float(fn, *operands))


def test_where_and_clamp_on_ints():
    c, a, b = (
        sample((6,), torch.bool),
        sample((6,), torch.int32, -9, 9),
        sample((6,), torch.int64, -9, 9, seed=1),
    )
    (out,) = run(Op.WHERE, [c, a, b])
    assert_close(out, torch.where(c, a, b))
    (out,) = run(Op.CLAMP, [a, -3, 4])
    assert_close(out, torch.clamp(a, -3, 4))


CASTS = [
    (torch.float32, DataType.Half), (torch.float32, DataType.BFloat16), (torch.float16, DataType.Float),
    (torch.bfloat16, DataType.Double), (torch.float32, DataType.Int), (torch.float32, DataType.Int32),
    (torch.int64, DataType.Float), (torch.int32, DataType.Bool), (torch.bool, DataType.Float),
    (torch.float32, DataType.Float8_e4m3fn), (torch.float16, DataType.Float8_e5m2),
]  # fmt: skip


@pytest.mark.parametrize("source, target", CASTS, ids=[f"{str(s)[6:]}-{t.name}" for s, t in CASTS])
def test_cast(source, target):
    x = sample((3, 4), source, -3, 3)
    (out,) = run(Op.CAST, [x], {"dtype": target})
    assert out.dtype == target.torch
    assert torch.equal(out.float(), x.to(target.torch).float())


# id, op, attrs, torch function, whether float outputs keep the input dtype (else they are Float)
REDUCTIONS = [
    ("sum", Op.SUM, {"dims": [1]}, lambda x: x.sum(1), True),
    ("sum-all", Op.SUM, {}, lambda x: x.sum(), True),
    ("sum-keepdim", Op.SUM, {"dims": [0, 2], "keepdim": True}, lambda x: x.sum((0, 2), keepdim=True), True),
    ("sum-to-float", Op.SUM, {"dims": [-1], "dtype": DataType.Float}, lambda x: x.sum(-1), False),
    ("max", Op.MAX, {"dims": [2]}, lambda x: x.amax(2), True),
    ("min", Op.MIN, {"dims": [0, 1]}, lambda x: x.amin((0, 1)), True),
    ("prod", Op.PROD, {"dims": [0, 2]}, lambda x: x.prod(2).prod(0), True),
    ("var", Op.VAR, {"dims": [1, 2], "correction": 1}, lambda x: x.var((1, 2), correction=1), False),
    ("var-keepdim", Op.VAR, {"dims": [0], "correction": 0, "keepdim": True},
     lambda x: x.var(0, correction=0, keepdim=True), False),
    ("var-mean", Op.VAR_MEAN, {"dims": [2], "correction": 1}, lambda x: torch.var_mean(x, 2), False),
    ("welford", Op.WELFORD, {"dims": [1, 2]},
     lambda x: (x.mean((1, 2)), x.var((1, 2), correction=0) * 12, torch.full((2,), 12)), False),
    ("cumsum", Op.CUMSUM, {"dim": 1}, lambda x: x.cumsum(1), True),
    ("cummax", Op.CUMMAX, {"dim": 2}, lambda x: x.cummax(2).values, True),
    ("cummin", Op.CUMMIN, {"dim": 0}, lambda x: x.cummin(0).values, True),
    ("argsort", Op.ARGSORT, {"dim": 2, "descending": True, "stable": True},
     lambda x: torch.argsort(x, dim=2, descending=True, stable=True), True),
    ("topk", Op.TOPK, {"k": 2, "dim": 2, "sorted": True}, lambda x: tuple(torch.topk(x, 2, dim=2)), True),
    ("topk-smallest", Op.TOPK, {"k": 3, "dim": 1, "largest": False, "sorted": True},
     lambda x: tuple(torch.topk(x, 3, dim=1, largest=False)), True),
]  # fmt: skip
REDUCTION_CASES = [(c, dtype) for c in REDUCTIONS for dtype in FLOATS]


@pytest.mark.parametrize(
    "case, dtype", REDUCTION_CASES, ids=[f"{c[0]}-{str(d)[6:]}" for c, d in REDUCTION_CASES]
)
def test_reductions_scans_and_sorts(case, dtype):
    _, op, attrs, fn, keeps_dtype = case
    x = sample((2, 3, 4), dtype, 0.5, 1.5)
    outs = run(op, [x], attrs)
    expected = fn(x.float())
    expected = expected if isinstance(expected, tuple) else (expected,)
    for out, want in zip(outs, expected, strict=True):
        if want.is_floating_point():
            assert out.dtype == (dtype if keeps_dtype else torch.float32)
        else:
            assert out.dtype == torch.int64
        assert_close(out, want.to(out.dtype), reduction_size=24)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool], ids=["int32", "int64", "bool"])
def test_integer_reductions(dtype):
    x = sample((3, 4), dtype, -5, 5)
    (total,) = run(Op.SUM, [x], {"dims": [1]})
    assert total.dtype == torch.int64
    assert_close(total, x.sum(1))
    (running,) = run(Op.CUMSUM, [x], {"dim": 0})
    assert_close(running, x.cumsum(0))
    (largest,) = run(Op.MAX, [x], {"dims": [0]})
    assert_close(largest, x.amax(0))


def test_half_sum_accumulates_in_float():
    x = torch.full((3000,), 1.0, dtype=torch.float16) + sample((3000,), torch.float16, 0, 0.01)
    (out,) = run(Op.SUM, [x], {"dims": [0]})
    assert torch.equal(out, x.float().sum().half())
    accumulated_in_half = torch.zeros((), dtype=torch.float16)
    for element in x:
        accumulated_in_half = accumulated_in_half + element
    assert not torch.equal(out, accumulated_in_half)


VIEWS = [
    ("broadcast-in-dim", Op.BROADCAST_IN_DIM, (3,), {"shape": [2, 3, 4], "broadcast_dims": [1]},
     lambda x: x[None, :, None].expand(2, 3, 4)),
    ("broadcast", Op.BROADCAST, (3, 4), {"is_broadcast_dim": [False, True, False]}, lambda x: x[:, None, :]),
    ("expand", Op.EXPAND, (3, 1), {"shape": [-1, 5]}, lambda x: x.expand(3, 5)),
    ("reshape", Op.RESHAPE, (2, 6), {"new_shape": [3, -1]}, lambda x: x.reshape(3, 4)),
    ("permute", Op.PERMUTE, (2, 3, 4), {"dims": [2, 0, 1]}, lambda x: x.permute(2, 0, 1)),
    ("squeeze", Op.SQUEEZE, (1, 3, 1), {"dims": [0, 2]}, lambda x: x.reshape(3)),
    ("stride-order", Op.STRIDE_ORDER, (2, 3), {"stride_order": [0, 1]}, lambda x: x),
    ("slice", Op.SLICE, (6, 5), {"starts": [1, -3], "ends": [4, 99]}, lambda x: x[1:4, -3:]),
    ("pad", Op.PAD, (2, 3), {"pad_widths": [1, 2, 0, 1]}, lambda x: F.pad(x, (1, 2, 0, 1))),
    ("pad-crop", Op.PAD, (4, 6), {"pad_widths": [-1, -2, -1, 0]}, lambda x: x[1:, 1:4]),
    ("triu", Op.TRIU, (4, 5), {"diagonal": 1}, lambda x: torch.triu(x, 1)),
]  # fmt: skip
VIEW_CASES = [(c, dtype) for c in VIEWS for dtype in (*FLOATS, torch.int32, torch.bool)]


@pytest.mark.parametrize("case, dtype", VIEW_CASES, ids=[f"{c[0]}-{str(d)[6:]}" for c, d in VIEW_CASES])
def test_views_and_resizes(case, dtype):
    _, op, shape, attrs, fn = case
    x = sample(shape, dtype, -5, 5)
    (out,) = run(op, [x], attrs)
    assert out.dtype == dtype
    assert torch.equal(out, fn(x))


def test_views_of_non_contiguous_inputs_stay_views():
    base = sample((4, 6), torch.float32)
    x = base.t()
    (out,) = run(Op.PERMUTE, [x], {"dims": [1, 0]})
    assert torch.equal(out, base)
    assert out.data_ptr() == base.data_ptr()


def test_stride_order_sets_the_layout():
    x = sample((2, 3, 4), torch.float32)
    (out,) = run(Op.STRIDE_ORDER, [x], {"stride_order": [0, 2, 1]})
    assert torch.equal(out, x)
    assert out.stride() == (1, 8, 2)


def test_pad_with_a_value_and_cat_promotes():
    x = sample((2, 3), torch.float16)
    (out,) = run(Op.PAD, [x, 7.0], {"pad_widths": [1, 0]})
    assert torch.equal(out, F.pad(x, (1, 0), value=7.0))
    y = sample((1, 3), torch.float32, seed=1)
    (out,) = run(Op.CAT, [x, y], {"dim": 0})
    assert torch.equal(out, torch.cat([x.float(), y]))


@pytest.mark.parametrize("dtype", [DataType.Float, DataType.Half, DataType.Int, DataType.Bool], ids=str)
def test_full(dtype):
    (out,) = run(Op.FULL, [Const(1.0)], {"shape": [2, 3], "dtype": dtype})
    assert torch.equal(out, torch.full((2, 3), 1.0, dtype=dtype.torch))


@pytest.mark.parametrize(
    "start, step, dtype",
    [(0, 1, DataType.Int), (3, -2, DataType.Int32), (0.5, 0.25, DataType.Float)],
    ids=str,
)
def test_iota(start, step, dtype):
    (out,) = run(Op.IOTA, [start, Const(step)], {"length": 6, "dtype": dtype})
    assert_close(out, (torch.arange(6, dtype=torch.float64) * step + start).to(dtype.torch))


@pytest.mark.parametrize("dtype", FLOATS + (torch.int64,), ids=lambda d: str(d)[6:])
def test_indexing_ops(dtype):
    x = sample((5, 4), dtype, -5, 5)
    index = torch.tensor([4, 0, 2], dtype=torch.int64)
    (out,) = run(Op.INDEX_SELECT, [x, index], {"dim": 0})
    assert torch.equal(out, x[index])
    (out,) = run(Op.SELECT, [x, 2], {"dim": 1})
    assert torch.equal(out, x[:, 2])
    gather_index = torch.tensor([[1, 0, 3, 3], [4, 4, 0, 1]])
    (out,) = run(Op.GATHER, [x, gather_index], {"dim": 0})
    assert torch.equal(out, torch.gather(x, 0, gather_index))
    along = torch.tensor([[0], [3], [2], [1], [0]])
    (out,) = run(Op.TAKE_ALONG_AXIS, [x, along], {"dim": 1})
    assert torch.equal(out, torch.take_along_dim(x, along, 1))
    scatter_index = torch.tensor([[0, 1, 2, 3], [4, 3, 2, 1]])
    src = sample((2, 4), dtype, -5, 5, seed=1)
    (out,) = run(Op.SCATTER, [x, scatter_index, src], {"dim": 0})
    assert torch.equal(out, torch.scatter(x, 0, scatter_index, src))
    (out,) = run(Op.SCATTER, [x, scatter_index, Const(1.0)], {"dim": 0})
    assert torch.equal(out, torch.scatter(x, 0, scatter_index, 1.0))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: str(d)[6:])
def test_accumulating_and_embedding(dtype):
    acc = sample((5, 3), dtype)
    index = torch.tensor([1, 1, 4, 0], dtype=torch.int32)
    value = sample((4, 3), dtype, seed=1)
    (out,) = run(Op.INDEX_PUT_ACCUMULATE, [acc, index, value])
    assert_close(out, in_float(lambda a, v: a.index_put((index.long(),), v, accumulate=True), acc, value))
    weight = sample((6, 4), dtype, seed=2)
    ids = torch.tensor([[0, 5, 2], [2, 2, 1]])
    (out,) = run(Op.EMBEDDING_FWD, [ids, weight], {"padding_idx": -1, "max_norm": 1.0})
    expected = in_float(lambda w: F.embedding(ids, w.clone(), padding_idx=5, max_norm=1.0), weight)
    assert_close(out, expected)
    assert torch.equal(weight, sample((6, 4), dtype, seed=2)), (
        "max_norm must not renormalize the input in place"
    )


MATMULS = [
    ("matmul", Op.MATMUL, [(2, 3), (3, 4)], torch.matmul),
    ("matmul-batched", Op.MATMUL, [(2, 1, 2, 3), (3, 3, 5)], torch.matmul),
    ("matmul-dot", Op.MATMUL, [(3,), (3,)], torch.matmul),
    ("linear", Op.LINEAR, [(2, 3), (4, 3)], F.linear),
    ("linear-bias", Op.LINEAR, [(2, 5, 3), (4, 3), (4,)], F.linear),
]
MATMUL_CASES = [(c, dtype) for c in MATMULS for dtype in FLOATS]


@pytest.mark.parametrize("case, dtype", MATMUL_CASES, ids=[f"{c[0]}-{str(d)[6:]}" for c, d in MATMUL_CASES])
def test_matmul_and_linear(case, dtype):
    _, op, shapes, fn = case
    operands = [sample(shape, dtype, seed=i) for i, shape in enumerate(shapes)]
    (out,) = run(op, operands)
    assert_close(out, in_float(fn, *operands), reduction_size=3)


def test_every_op_has_a_reference():
    assert [op for op in Op if op not in OPS] == []


def test_chain_rounds_after_every_op_and_aliases_write_back():
    b = FusionBuilder()
    x = b.define_tensor((2, 3), DataType.Half)
    half = b.define_scalar(DataType.Double, const=0.5)
    (y,) = b.add(Op.EXP, [x])
    (z,) = b.add(Op.MUL, [y, half])
    (total,) = b.add(Op.SUM, [z], {"dims": []})
    b.add_output(z, alias_input=x)
    b.add_output(total)
    fusion = b.build()
    given = sample((2, 3), torch.float16)
    original = given.clone()
    out, summed = evaluate(fusion, [given])
    expected = (original.float().exp().half().float() * 0.5).half()
    assert torch.equal(out, expected)
    assert torch.equal(given, expected), "the aliased input holds the output"
    assert summed.dim() == 0 and summed.dtype == torch.float16


def test_scalar_outputs_and_every_value():
    b = FusionBuilder()
    s = b.define_scalar(DataType.Int)
    (doubled,) = b.add(Op.MUL, [s, b.define_scalar(DataType.Int, const=2)])
    b.add_output(doubled)
    fusion = b.build()
    (out,) = evaluate(fusion, [21])
    assert out.dim() == 0 and out.item() == 42
    assert evaluate_values(fusion, [21]) == {"S0": 21, "S1": 2, "S2": 42}


def test_wrong_inputs_are_rejected():
    b = FusionBuilder()
    x = b.define_tensor((2, 3), DataType.Float)
    (y,) = b.add(Op.NEG, [x])
    b.add_output(y)
    fusion = b.build()
    with pytest.raises(DefinitionError, match=r"takes 1 inputs \(T0\), 2 were given"):
        evaluate(fusion, [torch.zeros(2, 3), 1])
    with pytest.raises(DefinitionError, match=r"given a tensor of shape \[3, 2\]"):
        evaluate(fusion, [torch.zeros(3, 2)])
    with pytest.raises(DefinitionError, match="pass torch.float32"):
        evaluate(fusion, [torch.zeros(2, 3, dtype=torch.float64)])


def test_torch_failures_name_the_expr():
    x = sample((3,), torch.float32)
    with pytest.raises(
        DefinitionError, match=r"in T2 = gather\(T0, T1, dim=0\): torch could not evaluate it"
    ):
        run(Op.GATHER, [x, torch.tensor([0, 7, 1])], {"dim": 0})


def test_where_with_number_branches_matches_torch():
    c = sample((5,), torch.bool)
    (out,) = run(Op.WHERE, [c, Const(1.5), Const(-1)])
    assert_close(out, torch.where(c, 1.5, -1))


def test_missing_reference_names_the_op(monkeypatch):
    b = FusionBuilder()
    x = b.define_tensor((2,), DataType.Float)
    (y,) = b.add(Op.ERF, [x])
    b.add_output(y)
    fusion = b.build()
    # the reference's own view of the table, without erf (the table itself keeps its order for other tests)
    monkeypatch.setattr("hfuse.reference.OPS", {op: d for op, d in OPS.items() if op is not Op.ERF})
    with pytest.raises(UnsupportedError, match="no meaning for erf"):
        evaluate(fusion, [torch.zeros(2)])


def test_runs_on_the_device_of_the_inputs(device):
    x = sample((3, 4), torch.float32).to(device)
    (out,) = run(Op.ADD, [x, 1.0])
    assert out.device == x.device
    assert_close(out.cpu(), x.cpu() + 1.0)


@pytest.mark.parametrize("op", [Op.VAR_MEAN, Op.WELFORD])
def test_the_mean_of_a_row_holding_an_infinity_is_nan_wherever_it_falls(op):
    """torch's Welford mean is inf where the infinity is reduced last and NaN where a finite element
    follows it; the reference does not depend on where it falls."""
    b = FusionBuilder()
    x = b.define_tensor([3, 4], DataType.Float)
    attrs = {"dims": [1], "correction": 0, "keepdim": False} if op is Op.VAR_MEAN else {"dims": [1]}
    outs = b.add(op, [x], attrs)
    for out in outs:
        b.add_output(out)
    fusion = b.build()
    t = torch.ones(3, 4)
    t[0, 0], t[1, 3] = math.inf, -math.inf
    mean = evaluate(fusion, [t])[1 if op is Op.VAR_MEAN else 0]
    assert mean[0].isnan() and mean[1].isnan() and mean[2] == 1.0
