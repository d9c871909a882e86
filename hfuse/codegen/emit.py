"""Triton spellings: dtypes, literals, and the table from elementwise op to Triton expression.

Every value is held in a compute type: fp16/bf16/fp8 as fp32 (loads upcast at once, stores cast
down), other types as themselves. Emitters receive operands already converted by their op's operand
policy, so `add` only writes `a + b`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Op

_TRITON_TYPES = {
    DataType.Double: "tl.float64",
    DataType.Float: "tl.float32",
    DataType.Half: "tl.float16",
    DataType.BFloat16: "tl.bfloat16",
    DataType.Float8_e4m3fn: "tl.float8e4nv",
    DataType.Float8_e5m2: "tl.float8e5",
    DataType.Int: "tl.int64",
    DataType.Index: "tl.int64",
    DataType.Int32: "tl.int32",
    DataType.UInt64: "tl.uint64",
    DataType.Bool: "tl.int1",
}


def storage_type(dtype: DataType) -> str:
    try:
        return _TRITON_TYPES[dtype]
    except KeyError:
        raise UnsupportedError(
            f"DataType.{dtype.name} has no Triton kernel support; cast it to a real type before the fusion"
        ) from None


def compute_type(dtype: DataType) -> str:
    return "tl.float32" if dtype.is_reduced_float else storage_type(dtype)


def literal(value: bool | int | float | complex) -> str:
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    raise UnsupportedError(f"the constant {value!r} is complex; kernels support real numbers only")


def convert(expr: str, source: DataType, target: DataType) -> str:
    """`expr`, held in the compute type of `source`, as a value of `target` in its compute type."""
    if target is DataType.Bool:
        return expr if source is DataType.Bool else f"({expr} != 0)"
    to = compute_type(target)
    if target.is_reduced_float:
        if compute_type(source) != to:  # ints, bools and doubles round through fp32, as torch does
            expr = f"{expr}.to({to})"
        return f"{round_down(expr, target)}.to({to})"
    return expr if compute_type(source) == to else f"{expr}.to({to})"


def round_down(expr: str, target: DataType) -> str:
    """A value of a reduced float type, from its fp32 compute value (rounded to nearest even)."""
    if target is DataType.BFloat16:
        return f"_to_bfloat16({expr})"
    return f"{expr}.to({storage_type(target)})"


def promote(dtypes: Sequence[DataType]) -> DataType:
    """The common type of tensor operands, torch's category order: bool < int < float."""
    floats = [d for d in dtypes if d.is_float]
    if floats:
        return DataType.Double if DataType.Double in floats else DataType.Float
    ints = [d for d in dtypes if d.is_int]
    if ints:
        return DataType.Int32 if all(d is DataType.Int32 for d in ints) else DataType.Int
    return DataType.Bool


class Policy(enum.Enum):
    """How tensor operands are converted before an emitter sees them."""

    TO_OUTPUT = "to the output's compute type"
    PROMOTE = "to the operands' common type"
    KEEP = "as they are"
    WHERE = "condition kept, branches to the output's type"


@dataclass(frozen=True, slots=True)
class Types:
    out: DataType
    operands: tuple[DataType, ...]  # after the policy's conversion

    @property
    def is_float(self) -> bool:
        return self.operands[0].is_float if self.operands else self.out.is_float

    @property
    def is_bool(self) -> bool:
        return (self.operands[0] if self.operands else self.out) is DataType.Bool


Emitter = Callable[[Sequence[str], Types], str]


def _float_only(template: str, identity_for_ints: bool = False) -> Emitter:
    def emit(a: Sequence[str], t: Types) -> str:
        if not t.is_float:
            if identity_for_ints:
                return a[0]
            raise UnsupportedError(f"{template.split('(')[0]} needs a floating-point operand")
        return template.format(*a)

    return emit


def _sign(a: Sequence[str], t: Types) -> str:
    if t.is_bool:
        return a[0]
    if t.is_float:
        return f"tl.where({a[0]} > 0, 1.0, tl.where({a[0]} < 0, -1.0, {a[0]}))"
    return f"tl.where({a[0]} > 0, 1, tl.where({a[0]} < 0, -1, 0))"


def _signbit(a: Sequence[str], t: Types) -> str:
    if t.operands[0] is DataType.Double:
        return f"({a[0]}.to(tl.int64, bitcast=True) < 0)"
    if t.is_float:
        return f"({a[0]}.to(tl.int32, bitcast=True) < 0)"
    return f"({a[0]} < 0)"


def _bitwise_not(a: Sequence[str], t: Types) -> str:
    return f"({a[0]} == 0)" if t.is_bool else f"(~{a[0]})"


def _float_or_true(template: str, int_text: str) -> Emitter:
    return lambda a, t: template.format(*a) if t.is_float else int_text.format(*a)


def _min_max(fn: str) -> Emitter:
    def emit(a: Sequence[str], t: Types) -> str:
        if t.is_float:
            return f"tl.{fn}({a[0]}, {a[1]}, propagate_nan=tl.PropagateNan.ALL)"
        return f"tl.{fn}({a[0]}, {a[1]})"

    return emit


def _div(a: Sequence[str], t: Types) -> str:
    return f"({a[0]} / {a[1]})" if t.out.is_float else f"({a[0]} // {a[1]})"


def _logical_right_shift(a: Sequence[str], t: Types) -> str:
    signed, unsigned = ("tl.int32", "tl.uint32") if t.out is DataType.Int32 else ("tl.int64", "tl.uint64")
    return f"({a[0]}.to({unsigned}, bitcast=True) >> {a[1]}.to({unsigned})).to({signed}, bitcast=True)"


def _pow(a: Sequence[str], t: Types) -> str:
    if t.out.is_float:
        return f"_pow({a[0]}, {a[1]})"
    return f"_ipow({a[0]}, {a[1]})"


def _nextafter(a: Sequence[str], t: Types) -> str:
    if t.out is DataType.Double:
        return f"_nextafter64({a[0]}, {a[1]})"
    if t.out is DataType.Float:
        return f"_nextafter32({a[0]}, {a[1]})"
    raise UnsupportedError("nextafter is supported on Float and Double only")


def _clamp(a: Sequence[str], t: Types) -> str:
    if t.out.is_float:
        low = f"tl.maximum({a[0]}, {a[1]}, propagate_nan=tl.PropagateNan.ALL)"
        return f"tl.minimum({low}, {a[2]}, propagate_nan=tl.PropagateNan.ALL)"
    return f"tl.minimum(tl.maximum({a[0]}, {a[1]}), {a[2]})"


def _where(a: Sequence[str], t: Types) -> str:
    condition = a[0] if t.operands[0] is DataType.Bool else f"({a[0]} != 0)"
    return f"tl.where({condition}, {a[1]}, {a[2]})"


def _template(text: str) -> Emitter:
    return lambda a, t: text.format(*a)


_T = _template
INF = 'float("inf")'

EMITTERS: dict[Op, tuple[Policy, Emitter]] = {
    # unary
    Op.ABS: (Policy.TO_OUTPUT, lambda a, t: a[0] if t.is_bool else f"tl.abs({a[0]})"),
    Op.ACOS: (Policy.TO_OUTPUT, _float_only("_acos({0})")),
    Op.ACOSH: (Policy.TO_OUTPUT, _float_only("tl.log({0} + tl.sqrt({0} * {0} - 1.0))")),
    Op.ASIN: (Policy.TO_OUTPUT, _float_only("_asin({0})")),
    Op.ASINH: (Policy.TO_OUTPUT, _float_only("_asinh({0})")),
    Op.ATAN: (Policy.TO_OUTPUT, _float_only("_atan({0})")),
    Op.ATANH: (Policy.TO_OUTPUT, _float_only("(0.5 * _log1p(2.0 * {0} / (1.0 - {0})))")),
    Op.CEIL: (Policy.TO_OUTPUT, _float_only("tl.ceil({0})", identity_for_ints=True)),
    Op.COS: (Policy.TO_OUTPUT, _float_only("tl.cos({0})")),
    Op.COSH: (Policy.TO_OUTPUT, _float_only("_cosh({0})")),
    Op.EXP: (Policy.TO_OUTPUT, _float_only("tl.exp({0})")),
    Op.EXP2: (Policy.TO_OUTPUT, _float_only("tl.exp2({0})")),
    Op.EXPM1: (Policy.TO_OUTPUT, _float_only("_expm1({0})")),
    Op.ERF: (Policy.TO_OUTPUT, _float_only("tl.erf({0})")),
    Op.ERFC: (Policy.TO_OUTPUT, _float_only("(1.0 - tl.erf({0}))")),
    Op.ERFINV: (Policy.TO_OUTPUT, _float_only("_erfinv({0})")),
    Op.ERFCINV: (Policy.TO_OUTPUT, _float_only("_erfinv(1.0 - {0})")),
    Op.FLOOR: (Policy.TO_OUTPUT, _float_only("tl.floor({0})", identity_for_ints=True)),
    Op.FRAC: (Policy.TO_OUTPUT, _float_only("({0} - _trunc({0}))")),
    Op.LGAMMA: (Policy.TO_OUTPUT, _float_only("_lgamma({0})")),
    Op.LOG: (Policy.TO_OUTPUT, _float_only("tl.log({0})")),
    Op.LOG10: (Policy.TO_OUTPUT, _float_only("(tl.log({0}) * 0.4342944819032518)")),
    Op.LOG1P: (Policy.TO_OUTPUT, _float_only("_log1p({0})")),
    Op.LOG2: (Policy.TO_OUTPUT, _float_only("tl.log2({0})")),
    Op.NEG: (Policy.TO_OUTPUT, _T("(-{0})")),
    Op.LOGICAL_NOT: (Policy.KEEP, _T("({0} == 0)")),
    Op.BITWISE_NOT: (Policy.TO_OUTPUT, _bitwise_not),
    Op.RELU: (Policy.TO_OUTPUT, _T("tl.where({0} < 0, 0, {0})")),
    Op.RECIPROCAL: (Policy.TO_OUTPUT, _T("(1.0 / {0})")),
    Op.ROUND: (Policy.TO_OUTPUT, _float_only("_round_half_even({0})", identity_for_ints=True)),
    Op.RSQRT: (Policy.TO_OUTPUT, _float_only("tl.rsqrt({0})")),
    Op.SET: (Policy.TO_OUTPUT, _T("{0}")),
    Op.SEGMENT_SET: (Policy.TO_OUTPUT, _T("{0}")),
    Op.REAL: (Policy.TO_OUTPUT, _T("{0}")),
    Op.SIGN: (Policy.TO_OUTPUT, _sign),
    Op.SIGMOID: (Policy.TO_OUTPUT, _float_only("tl.sigmoid({0})")),
    Op.SIGNBIT: (Policy.KEEP, _signbit),
    Op.SILU: (Policy.TO_OUTPUT, _float_only("({0} * tl.sigmoid({0}))")),
    Op.SIN: (Policy.TO_OUTPUT, _float_only("tl.sin({0})")),
    Op.SINH: (Policy.TO_OUTPUT, _float_only("_sinh({0})")),
    Op.SQRT: (Policy.TO_OUTPUT, _float_only("tl.sqrt({0})")),
    Op.TAN: (Policy.TO_OUTPUT, _float_only("(tl.sin({0}) / tl.cos({0}))")),
    # 1 - 2 / (e^2x + 1) with e^2x as one exp2: the same accuracy as 2 sigmoid(2x) - 1, fewer instructions
    Op.TANH: (Policy.TO_OUTPUT, _float_only("(1.0 - 2.0 / (tl.exp2(2.8853900817779268 * {0}) + 1.0))")),
    Op.TRUNC: (Policy.TO_OUTPUT, _float_only("_trunc({0})", identity_for_ints=True)),
    Op.ISFINITE: (Policy.KEEP, _float_or_true(f"(tl.abs({{0}}) < {INF})", "({0} == {0})")),
    Op.ISINF: (Policy.KEEP, _float_or_true(f"(tl.abs({{0}}) == {INF})", "({0} != {0})")),
    Op.ISNAN: (Policy.KEEP, _T("({0} != {0})")),
    Op.ISNEGINF: (Policy.KEEP, _float_or_true('({0} == float("-inf"))', "({0} != {0})")),
    Op.ISPOSINF: (Policy.KEEP, _float_or_true(f"({{0}} == {INF})", "({0} != {0})")),
    Op.ISREAL: (Policy.KEEP, _T("(({0} == {0}) | ({0} != {0}))")),
    # binary
    Op.ADD: (Policy.TO_OUTPUT, _T("({0} + {1})")),
    Op.SUB: (Policy.TO_OUTPUT, _T("({0} - {1})")),
    Op.MUL: (Policy.TO_OUTPUT, _T("({0} * {1})")),
    Op.DIV: (Policy.TO_OUTPUT, _div),
    Op.TRUEDIV: (Policy.TO_OUTPUT, _T("({0} / {1})")),
    Op.ATAN2: (Policy.TO_OUTPUT, _T("_atan2({0}, {1})")),
    Op.FMOD: (Policy.TO_OUTPUT, _T("({0} % {1})")),
    Op.MOD: (Policy.TO_OUTPUT, _T("({0} % {1})")),
    Op.REMAINDER: (Policy.TO_OUTPUT, _T("_remainder({0}, {1})")),
    Op.POW: (Policy.TO_OUTPUT, _pow),
    Op.NEXTAFTER: (Policy.TO_OUTPUT, _nextafter),
    Op.MINIMUM: (Policy.TO_OUTPUT, _min_max("minimum")),
    Op.MAXIMUM: (Policy.TO_OUTPUT, _min_max("maximum")),
    Op.EQ: (Policy.PROMOTE, _T("({0} == {1})")),
    Op.NE: (Policy.PROMOTE, _T("({0} != {1})")),
    Op.GE: (Policy.PROMOTE, _T("({0} >= {1})")),
    Op.GT: (Policy.PROMOTE, _T("({0} > {1})")),
    Op.LE: (Policy.PROMOTE, _T("({0} <= {1})")),
    Op.LT: (Policy.PROMOTE, _T("({0} < {1})")),
    Op.LOGICAL_AND: (Policy.KEEP, _T("(({0} != 0) & ({1} != 0))")),
    Op.LOGICAL_OR: (Policy.KEEP, _T("(({0} != 0) | ({1} != 0))")),
    Op.BITWISE_AND: (Policy.TO_OUTPUT, _T("({0} & {1})")),
    Op.BITWISE_OR: (Policy.TO_OUTPUT, _T("({0} | {1})")),
    Op.BITWISE_XOR: (Policy.TO_OUTPUT, _T("({0} ^ {1})")),
    Op.BITWISE_LEFT_SHIFT: (Policy.TO_OUTPUT, _T("({0} << {1})")),
    Op.BITWISE_RIGHT_SHIFT: (Policy.TO_OUTPUT, _T("({0} >> {1})")),
    Op.LOGICAL_RIGHT_SHIFT: (Policy.TO_OUTPUT, _logical_right_shift),
    Op.GCD: (Policy.TO_OUTPUT, _T("_gcd({0}, {1})")),
    # ternary
    Op.WHERE: (Policy.WHERE, _where),
    Op.LERP: (Policy.TO_OUTPUT, _T("_lerp({0}, {1}, {2})")),
    Op.CLAMP: (Policy.TO_OUTPUT, _clamp),
    Op.THRESHOLD: (Policy.TO_OUTPUT, _T("tl.where({0} <= {1}, {2}, {0})")),
    Op.ADDCMUL: (Policy.TO_OUTPUT, _T("({0} + {3} * {1} * {2})")),
}


def emitter(op: Op) -> tuple[Policy, Emitter]:
    try:
        return EMITTERS[op]
    except KeyError:
        raise UnsupportedError(
            f"fd.ops.{op.frontend_name} has no Triton emitter; keep it out of generated kernels "
            f"(it must run in a torch segment)"
        ) from None


def power_by_constant(base: str, exponent: float) -> str | None:
    """`base ** exponent` for the exponents that have an exact short form, else None."""
    forms = {
        0.0: f"({base} * 0 + 1)",
        1.0: base,
        2.0: f"({base} * {base})",
        3.0: f"({base} * {base} * {base})",
        0.5: f"tl.sqrt({base})",
        -0.5: f"tl.rsqrt({base})",
        -1.0: f"(1.0 / {base})",
        -2.0: f"(1.0 / ({base} * {base}))",
    }
    return forms.get(float(exponent))
