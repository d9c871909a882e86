"""The elementwise ops: one entry each, saying its operand and result types, its torch function, its
emitter and the cost of one element.

A unary op with a float result that a kernel computes with one Triton call is one line:
`unary(Op.EXP, FLOATING, torch.exp, float_only("tl.exp({0})"), cost=LONG_MATH)`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from hfuse.infer.elementwise import ElementwiseRule, OperandTypes, ResultType
from hfuse.ir import Family, Op
from hfuse.ops.definition import Computed, Cost, OpDef
from hfuse.ops.emitters import (
    INF,
    Emitter,
    Policy,
    abs_,
    add,
    addcmul,
    bitwise_not,
    clamp,
    div,
    float_only,
    float_or_other,
    fmod,
    left_shift,
    logical_right_shift,
    min_max,
    nextafter,
    pow_,
    remainder,
    right_shift,
    sign,
    signbit,
    template,
    where,
    zero,
)
from hfuse.ops.meaning import Tensor, TorchOperands, elementwise_meaning

PROMOTED, FLOATING, BOOL = ResultType.PROMOTED, ResultType.FLOATING, ResultType.BOOL
REAL_PART = ResultType.REAL
ANY, REAL, NOT_BOOL = OperandTypes.ANY, OperandTypes.REAL, OperandTypes.NOT_BOOL
INTEGER, INTEGER_OR_BOOL = OperandTypes.INTEGER, OperandTypes.INTEGER_OR_BOOL
TO_OUTPUT, PROMOTE, KEEP = Policy.TO_OUTPUT, Policy.PROMOTE, Policy.KEEP
CHEAP, LONG_MATH = Cost.CHEAP, Cost.LONG_MATH
OWN = TorchOperands.OWN


def elementwise(
    op: Op,
    arity: int,
    result: ResultType,
    fn: Callable[..., Tensor],
    emitter: Emitter,
    *,
    operands: OperandTypes = ANY,
    typed_by: tuple[int, ...] | None = None,
    held_by_result: bool = False,
    policy: Policy = TO_OUTPUT,
    cost: Cost = CHEAP,
    torch_operands: TorchOperands = TorchOperands.COMPUTE,
) -> OpDef:
    """An op that a kernel computes element by element with `emitter`; torch computes it with `fn`."""
    return OpDef(
        op,
        ElementwiseRule(arity, result, operands, typed_by, held_by_result),
        elementwise_meaning(fn, torch_operands),
        Computed.BY_EMITTER,
        emitter,
        policy,
        cost,
    )


def unary(op: Op, result: ResultType, fn: Callable[..., Tensor], emitter: Emitter, **kwargs) -> OpDef:
    assert op.family is Family.UNARY, op
    return elementwise(op, 1, result, fn, emitter, **kwargs)


def binary(op: Op, result: ResultType, fn: Callable[..., Tensor], emitter: Emitter, **kwargs) -> OpDef:
    assert op.family is Family.BINARY, op
    return elementwise(op, 2, result, fn, emitter, **kwargs)


def ternary(
    op: Op,
    arity: int,
    fn: Callable[..., Tensor],
    emitter: Emitter,
    *,
    result: ResultType = PROMOTED,
    **kwargs,
) -> OpDef:
    assert op.family is Family.TERNARY, op
    return elementwise(op, arity, result, fn, emitter, **kwargs)


def _imag(x: Tensor) -> Tensor:
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def _logical_right_shift(a: Tensor, b: Tensor) -> Tensor:
    bits = a.element_size() * 8
    b = b.to(a.dtype)
    in_range = (b > 0) & (b < bits)
    safe = torch.where(in_range, b, torch.ones_like(b))
    # arithmetic shift, then clear the copies of the sign bit that it shifted in
    mask = (torch.ones_like(a) << (bits - safe)) - 1
    shifted = (a >> safe) & mask
    return torch.where(b <= 0, a, torch.where(in_range, shifted, torch.zeros_like(a)))


def _div(a: Tensor, b: Tensor) -> Tensor:
    return torch.div(a, b, rounding_mode="trunc" if not a.is_floating_point() else None)


T = template

UNARY = [
    unary(Op.ABS, REAL_PART, torch.abs, abs_, torch_operands=OWN),
    unary(Op.ACOS, FLOATING, torch.acos, float_only("_acos({0})")),
    unary(Op.ACOSH, FLOATING, torch.acosh, float_only("_acosh({0})")),
    unary(Op.ASIN, FLOATING, torch.asin, float_only("_asin({0})")),
    unary(Op.ASINH, FLOATING, torch.asinh, float_only("_asinh({0})")),
    unary(Op.ATAN, FLOATING, torch.atan, float_only("_atan({0})")),
    unary(Op.ATANH, FLOATING, torch.atanh, float_only("(0.5 * _log1p(2.0 * {0} / (1.0 - {0})))")),
    unary(
        Op.CEIL,
        PROMOTED,
        torch.ceil,
        float_only("tl.ceil({0})", identity_for_ints=True, single="_ceil_f32({0})"),
        operands=REAL,
    ),
    unary(Op.COS, FLOATING, torch.cos, float_only("_cos({0})"), cost=LONG_MATH),
    unary(Op.COSH, FLOATING, torch.cosh, float_only("_cosh({0})")),
    unary(Op.EXP, FLOATING, torch.exp, float_only("tl.exp({0})"), cost=LONG_MATH),
    unary(Op.EXP2, FLOATING, torch.exp2, float_only("tl.exp2({0})"), cost=LONG_MATH),
    unary(Op.EXPM1, FLOATING, torch.expm1, float_only("_expm1({0})"), cost=LONG_MATH),
    unary(Op.ERF, FLOATING, torch.erf, float_only("tl.erf({0})"), cost=LONG_MATH),
    unary(Op.ERFC, FLOATING, torch.erfc, float_only("(1.0 - tl.erf({0}))"), cost=LONG_MATH),
    unary(Op.ERFINV, FLOATING, torch.erfinv, float_only("_erfinv({0})"), operands=REAL),
    unary(
        Op.ERFCINV, FLOATING, lambda x: torch.erfinv(1 - x), float_only("_erfinv(1.0 - {0})"), operands=REAL
    ),
    unary(
        Op.FLOOR,
        PROMOTED,
        torch.floor,
        float_only("tl.floor({0})", identity_for_ints=True, single="_floor_f32({0})"),
        operands=REAL,
    ),
    unary(Op.FRAC, PROMOTED, torch.frac, float_only("({0} - _trunc({0}))"), operands=REAL),
    unary(Op.LGAMMA, FLOATING, torch.lgamma, float_only("_lgamma({0})"), operands=REAL),
    unary(Op.LOG, FLOATING, torch.log, float_only("tl.log({0})"), cost=LONG_MATH),
    unary(Op.LOG10, FLOATING, torch.log10, float_only("(tl.log({0}) * 0.4342944819032518)"), cost=LONG_MATH),
    unary(Op.LOG1P, FLOATING, torch.log1p, float_only("_log1p({0})"), cost=LONG_MATH),
    unary(Op.LOG2, FLOATING, torch.log2, float_only("tl.log2({0})"), cost=LONG_MATH),
    unary(Op.NEG, PROMOTED, torch.neg, T("(-{0})"), operands=NOT_BOOL),
    unary(Op.LOGICAL_NOT, BOOL, torch.logical_not, T("({0} == 0)"), policy=KEEP),
    unary(Op.BITWISE_NOT, PROMOTED, torch.bitwise_not, bitwise_not, operands=INTEGER_OR_BOOL),
    unary(Op.RELU, PROMOTED, torch.relu, T("tl.where({0} < 0, 0, {0})")),
    unary(Op.RECIPROCAL, FLOATING, torch.reciprocal, T("(1.0 / {0})")),
    unary(
        Op.ROUND,
        PROMOTED,
        torch.round,
        float_only("_round_half_even({0})", identity_for_ints=True),
        operands=REAL,
    ),
    unary(Op.RSQRT, FLOATING, torch.rsqrt, float_only("tl.rsqrt({0})", single="_rsqrt_f32({0})")),
    unary(Op.SET, PROMOTED, torch.clone, T("{0}")),
    unary(Op.SEGMENT_SET, PROMOTED, torch.clone, T("{0}")),
    unary(Op.SIGN, PROMOTED, torch.sign, sign, operands=NOT_BOOL),
    unary(Op.SIGMOID, FLOATING, torch.sigmoid, float_only("tl.sigmoid({0})"), cost=LONG_MATH),
    unary(Op.SIGNBIT, BOOL, torch.signbit, signbit, operands=REAL, policy=KEEP),
    unary(Op.SILU, FLOATING, F.silu, float_only("({0} * tl.sigmoid({0}))"), cost=LONG_MATH),
    unary(Op.SIN, FLOATING, torch.sin, float_only("_sin({0})"), cost=LONG_MATH),
    unary(Op.SINH, FLOATING, torch.sinh, float_only("_sinh({0})")),
    unary(Op.SQRT, FLOATING, torch.sqrt, float_only("tl.sqrt({0})", single="_sqrt_f32({0})")),
    unary(Op.TAN, FLOATING, torch.tan, float_only("_tan({0})"), cost=LONG_MATH),
    # 1 - 2 / (e^2x + 1) with e^2x as one exp2: the same accuracy as 2 sigmoid(2x) - 1, fewer instructions
    unary(
        Op.TANH,
        FLOATING,
        torch.tanh,
        float_only("(1.0 - 2.0 / (tl.exp2(2.8853900817779268 * {0}) + 1.0))"),
        cost=LONG_MATH,
    ),
    unary(Op.TRUNC, PROMOTED, torch.trunc, float_only("_trunc({0})", identity_for_ints=True), operands=REAL),
    unary(
        Op.ISFINITE,
        BOOL,
        torch.isfinite,
        float_or_other(f"(tl.abs({{0}}) < {INF})", "({0} == {0})"),
        policy=KEEP,
    ),
    unary(
        Op.ISINF, BOOL, torch.isinf, float_or_other(f"(tl.abs({{0}}) == {INF})", "({0} != {0})"), policy=KEEP
    ),
    unary(Op.ISNAN, BOOL, torch.isnan, T("({0} != {0})"), policy=KEEP),
    unary(
        Op.ISNEGINF,
        BOOL,
        torch.isneginf,
        float_or_other('({0} == float("-inf"))', "({0} != {0})"),
        policy=KEEP,
    ),
    unary(
        Op.ISPOSINF, BOOL, torch.isposinf, float_or_other(f"({{0}} == {INF})", "({0} != {0})"), policy=KEEP
    ),
    unary(Op.ISREAL, BOOL, torch.isreal, T("(({0} == {0}) | ({0} != {0}))"), policy=KEEP),
    unary(Op.REAL, REAL_PART, torch.real, T("{0}"), torch_operands=OWN),
    # kernels hold real values only, whose imaginary part is 0
    unary(Op.IMAG, REAL_PART, _imag, zero, torch_operands=OWN),
]

BINARY = [
    binary(Op.ADD, PROMOTED, torch.add, add),
    binary(Op.ATAN2, FLOATING, torch.atan2, T("_atan2({0}, {1})"), operands=REAL),
    binary(Op.DIV, PROMOTED, _div, div),
    binary(Op.TRUEDIV, FLOATING, torch.true_divide, T("({0} / {1})")),
    binary(Op.FMOD, PROMOTED, torch.fmod, fmod, operands=REAL),
    binary(Op.MUL, PROMOTED, torch.mul, T("({0} * {1})")),
    # one step in the result's own precision: no upcast
    binary(
        Op.NEXTAFTER, PROMOTED, torch.nextafter, nextafter, operands=REAL, torch_operands=TorchOperands.RESULT
    ),
    binary(Op.POW, PROMOTED, torch.pow, pow_, cost=LONG_MATH),
    binary(Op.REMAINDER, PROMOTED, torch.remainder, remainder, operands=REAL),
    binary(Op.SUB, PROMOTED, torch.sub, T("({0} - {1})")),
    binary(Op.MINIMUM, PROMOTED, torch.minimum, min_max("minimum"), operands=REAL),
    binary(Op.MAXIMUM, PROMOTED, torch.maximum, min_max("maximum"), operands=REAL),
    binary(Op.MOD, PROMOTED, torch.fmod, fmod, operands=REAL),
    binary(Op.EQ, BOOL, torch.eq, T("({0} == {1})"), policy=PROMOTE),
    binary(Op.GE, BOOL, torch.ge, T("({0} >= {1})"), policy=PROMOTE),
    binary(Op.GT, BOOL, torch.gt, T("({0} > {1})"), policy=PROMOTE),
    binary(Op.LE, BOOL, torch.le, T("({0} <= {1})"), policy=PROMOTE),
    binary(Op.LT, BOOL, torch.lt, T("({0} < {1})"), policy=PROMOTE),
    binary(Op.NE, BOOL, torch.ne, T("({0} != {1})"), policy=PROMOTE),
    binary(Op.LOGICAL_AND, BOOL, torch.logical_and, T("(({0} != 0) & ({1} != 0))"), policy=KEEP),
    binary(Op.LOGICAL_OR, BOOL, torch.logical_or, T("(({0} != 0) | ({1} != 0))"), policy=KEEP),
    binary(Op.BITWISE_AND, PROMOTED, torch.bitwise_and, T("({0} & {1})"), operands=INTEGER_OR_BOOL),
    binary(Op.BITWISE_OR, PROMOTED, torch.bitwise_or, T("({0} | {1})"), operands=INTEGER_OR_BOOL),
    binary(Op.BITWISE_XOR, PROMOTED, torch.bitwise_xor, T("({0} ^ {1})"), operands=INTEGER_OR_BOOL),
    binary(Op.BITWISE_LEFT_SHIFT, PROMOTED, torch.bitwise_left_shift, left_shift, operands=INTEGER),
    binary(Op.BITWISE_RIGHT_SHIFT, PROMOTED, torch.bitwise_right_shift, right_shift, operands=INTEGER),
    binary(Op.LOGICAL_RIGHT_SHIFT, PROMOTED, _logical_right_shift, logical_right_shift, operands=INTEGER),
    binary(Op.GCD, PROMOTED, torch.gcd, T("_gcd({0}, {1})"), operands=INTEGER),
]

TERNARY = [
    # the result takes the branches' type; the condition may be of any type
    ternary(
        Op.WHERE,
        3,
        lambda c, a, b: torch.where(c.bool(), a, b),
        where,
        typed_by=(1, 2),
        policy=Policy.WHERE,
        torch_operands=TorchOperands.BRANCHES,
    ),
    ternary(Op.LERP, 3, torch.lerp, T("_lerp({0}, {1}, {2})"), result=FLOATING),
    ternary(Op.CLAMP, 3, lambda x, lo, hi: torch.clamp(x, lo, hi), clamp),
    # x where x > threshold, else value: the result takes x's type, and the threshold and value are held in
    # it (rounded to a Half x's type, a Double threshold of an Int x truncated), as nvFuser and torch's CUDA
    # kernel do (torch's CPU kernel compares a Half or BFloat16 x with the float threshold unrounded)
    ternary(
        Op.THRESHOLD,
        3,
        lambda x, t, v: torch.where(x <= t, v, x),
        T("tl.where({0} <= {1}, {2}, {0})"),
        typed_by=(0,),
        held_by_result=True,
        policy=Policy.HELD_BY_OUTPUT,
        torch_operands=TorchOperands.HELD_BY_RESULT,
    ),
    ternary(Op.ADDCMUL, 4, lambda x, t1, t2, v: x + v * (t1 * t2), addcmul),
]
