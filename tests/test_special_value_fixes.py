"""Each wrong result or failed compile that special values found, as a small fusion compared with torch (the
reference) through the generated kernels: NaN in max and min, the infinities of erfinv and erfcinv, scalars
out of a tensor's range in comparisons, bool arithmetic, integer edge cases, signed zeros, and chains as
long as the op limit."""

from __future__ import annotations

import math

import pytest
from special_sweep import _Case, mismatches

from hfuse.dtypes import DataType
from hfuse.ir import Op
from hfuse.pipeline import compile_fusion

F64, F32, BF16 = DataType.Double, DataType.Float, DataType.BFloat16
I64, I32, BOOL = DataType.Int, DataType.Int32, DataType.Bool
NAN, INF = math.nan, math.inf


def _reduced(op: Op, dtype: DataType, rows: list[list[float]]):
    def build(c: _Case) -> None:
        x = c.tensor([v for row in rows for v in row], dtype, (len(rows), len(rows[0])))
        c.output(c.b.op(op, x, dims=[1], keepdim=False), f"{op.frontend_name} of rows")

    return build


def _unary(op: Op, dtype: DataType, values: list):
    def build(c: _Case) -> None:
        c.output(c.b.op(op, c.tensor(values, dtype)), f"{op.frontend_name}({values})")

    return build


def _with_scalar(op: Op, dtype: DataType, values: list, scalar, kind: DataType, scalar_first: bool = False):
    def build(c: _Case) -> None:
        x, s = c.tensor(values, dtype), c.b.const(scalar, kind)
        c.output(c.b.op(op, *((s, x) if scalar_first else (x, s))), f"{op.frontend_name} with {scalar!r}")

    return build


def _binary(op: Op, a: tuple[DataType, list], b: tuple[DataType, list]):
    def build(c: _Case) -> None:
        c.output(c.b.op(op, c.tensor(a[1], a[0]), c.tensor(b[1], b[0])), f"{op.frontend_name}{a, b}")

    return build


ROWS = [[1.0, NAN, 2.0, 3.0], [NAN] * 4, [-INF, -INF, NAN, 1.0], [-0.0, 0.0, -0.0, -0.0]]
CASES = {
    "max propagates NaN": _reduced(Op.MAX, F32, ROWS),
    "min propagates NaN": _reduced(Op.MIN, F32, ROWS),
    "Double max over all-NaN rows": _reduced(Op.MAX, F64, ROWS),
    "bf16 min with NaN": _reduced(Op.MIN, BF16, ROWS),
    "erfcinv at 0 and 2 is +-inf": _unary(Op.ERFCINV, F32, [0.0, 2.0, 1.0, NAN, 0.5]),
    "erfinv at +-1 is +-inf": _unary(Op.ERFINV, F64, [1.0, -1.0, 0.0, NAN]),
    "sign of NaN and -0.0 is 0": _unary(Op.SIGN, F32, [NAN, -0.0, 0.0, -INF, 2.0]),
    "acosh of large negative int64 is NaN": _unary(Op.ACOSH, I64, [-(2**62), -1, 1, 2**62]),
    "acosh of the lowest double is NaN": _unary(Op.ACOSH, F64, [-1.7976931348623157e308, 1e300, INF]),
    "sinh of +-inf": _unary(Op.SINH, F32, [INF, -INF, -0.0, NAN, 100.0]),
    "lgamma of +-inf is inf": _unary(Op.LGAMMA, F32, [INF, -INF, 1.0]),
    "ne(bool, -7)": _with_scalar(Op.NE, BOOL, [False, True], -7, I64),
    "gt(bool, -inf)": _with_scalar(Op.GT, BOOL, [False, True], -INF, F64),
    "lt(-7, bool)": _with_scalar(Op.LT, BOOL, [False, True], -7, I64, scalar_first=True),
    "eq(bool, 2)": _with_scalar(Op.EQ, BOOL, [False, True], 2, I64),
    "lt(int32, 2**40) wraps the scalar": _with_scalar(Op.LT, I32, [0, 1, -5, 2**31 - 1], 2**40, I64),
    "eq(int32, 2**32 + 1) wraps the scalar": _with_scalar(Op.EQ, I32, [0, 1, -5], 2**32 + 1, I64),
    "ge(int32, 0.5)": _with_scalar(Op.GE, I32, [0, 1, -5], 0.5, F64),
    "bitwise_and(int32, 2**40 + 3)": _with_scalar(Op.BITWISE_AND, I32, [0, 1, -5, 7], 2**40 + 3, I64),
    "add(int32, 2**40 + 3) wraps": _with_scalar(Op.ADD, I32, [0, 1, -5, 7], 2**40 + 3, I64),
    "logical_right_shift(int32, 3)": _with_scalar(Op.LOGICAL_RIGHT_SHIFT, I32, [-8, 8, 1, -1], 3, I64),
    "logical_right_shift(-8, int32)": _with_scalar(
        Op.LOGICAL_RIGHT_SHIFT, I32, [0, 1, 31, 32, -1], -8, I64, scalar_first=True
    ),
    "logical_right_shift(int64, int64)": _binary(
        Op.LOGICAL_RIGHT_SHIFT, (I64, [-8, -8, -8, -8, 5]), (I64, [0, 1, 63, 64, -2])
    ),
    "bool + bool": _binary(Op.ADD, (BOOL, [False, True, False, True]), (BOOL, [False, False, True, True])),
    "bool + True": _with_scalar(Op.ADD, BOOL, [False, True], True, BOOL),
    "remainder(int64, bf16)": _binary(Op.REMAINDER, (I64, [7, -7, 2**40, 0]), (BF16, [2.0, 2.0, -3.0, NAN])),
    "remainder(int64, True)": _with_scalar(Op.REMAINDER, I64, [7, -7, 0], True, BOOL),
    "pow(int64, negative int64)": _binary(Op.POW, (I64, [2, 1, -1, -1, 5, 3]), (I64, [-1, -5, -3, -2, 0, 2])),
    "pow(-1, +-inf) is 1": _binary(Op.POW, (F32, [-1.0, -1.0, 2.0]), (F32, [INF, -INF, INF])),
    "pow of -inf and -0.0": _binary(
        Op.POW, (F64, [-INF, -INF, -0.0, -0.0, -0.0, 3.4e38]), (F64, [0.5, -0.5, -3.0, -2.0, 0.5, 1.0])
    ),
    "pow(tensor, -0.0) is 1": _with_scalar(Op.POW, F32, [NAN, INF, -INF, 0.0, 2.0], -0.0, F64),
    "atan2 of signed zeros": _binary(
        Op.ATAN2, (F64, [-0.0, -0.0, 0.0, 0.0, -0.0, 1.0]), (F64, [-0.0, 0.0, -0.0, 0.0, -1.0, -0.0])
    ),
    "atan2 of infinities": _binary(Op.ATAN2, (F32, [INF, -INF, INF, -INF]), (F32, [INF, INF, -INF, -INF])),
    "atan2(tensor, -0.0)": _with_scalar(Op.ATAN2, F32, [-0.0, 0.0, 1.0, -1.0], -0.0, F64),
    "atan2(-0.0, tensor)": _with_scalar(Op.ATAN2, F32, [-0.0, 0.0, 1.0, -1.0], -0.0, F64, scalar_first=True),
    "nextafter(tensor, inf)": _with_scalar(Op.NEXTAFTER, F32, [0.0, 1.0, -INF, NAN], INF, F64),
    "where(bool, tensor, 1e300) keeps the double": lambda c: c.output(
        c.b.op(Op.WHERE, c.tensor([True, False], BOOL), c.tensor([1.0, 2.0], F64), c.b.const(1e300, F64)),
        "where",
    ),
}


@pytest.mark.parametrize("build", list(CASES.values()), ids=list(CASES))
def test_the_kernel_agrees_with_torch(build):
    c = _Case()
    build(c)
    assert not mismatches(c.build())


def _chain(length: int) -> _Case:
    c = _Case()
    y = c.tensor([1.0, -2.0, NAN, -0.0], F32)
    for k in range(length):
        y = c.b.op(Op.NEG if k % 2 else Op.ABS, y)
    c.output(y, f"{length} chained unary ops")
    return c


def test_a_chain_as_long_as_the_op_limit_compiles_and_agrees_with_torch():
    case = _chain(2000).build()
    assert compile_fusion(case.fusion).kernel_count == 1
    assert not mismatches(case)
