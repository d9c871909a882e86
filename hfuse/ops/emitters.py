"""How a kernel computes an elementwise op: Triton expression text from the operands' text.

Every value in a kernel is held in a compute type (fp16, bf16 and fp8 as fp32). Before an emitter sees
its operands, codegen converts the tensor operands as the op's `Policy` says, so `add` only writes
`a + b`. Names that start with an underscore (`_pow`, `_erfinv`) are helpers that codegen's math
library adds to the kernel.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError

INF = 'float("inf")'


class Policy(enum.Enum):
    """How tensor operands are converted before an emitter sees them."""

    TO_OUTPUT = "to the output's compute type"
    HELD_BY_OUTPUT = "to the output's own type (rounded as it holds them), then its compute type"
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


def template(text: str) -> Emitter:
    """The text with the operands in place of {0}, {1}, ..."""
    return lambda a, t: text.format(*a)


def float_only(text: str, identity_for_ints: bool = False, single: str | None = None) -> Emitter:
    """`text` of a floating-point operand (`single` instead, when given, of one computed in float32); an
    integer operand is an error, or left as it is."""

    def emit(a: Sequence[str], t: Types) -> str:
        if not t.is_float:
            if identity_for_ints:
                return a[0]
            raise UnsupportedError(f"{text.split('(')[0]} needs a floating-point operand")
        if single is not None and t.operands[0] is not DataType.Double:
            return single.format(*a)
        return text.format(*a)

    return emit


def float_or_other(float_text: str, other_text: str) -> Emitter:
    """`float_text` of a floating-point operand, `other_text` of an integer or Bool one."""
    return lambda a, t: float_text.format(*a) if t.is_float else other_text.format(*a)


def abs_(a: Sequence[str], t: Types) -> str:
    return a[0] if t.is_bool else f"tl.abs({a[0]})"


def zero(a: Sequence[str], t: Types) -> str:
    """0 (False) in the type and shape of the operand, whatever its value (NaN and inf included)."""
    if t.is_bool:
        return f"({a[0]} != {a[0]})"
    return f"tl.where(False, {a[0]}, 0)"


def sign(a: Sequence[str], t: Types) -> str:
    if t.is_bool:
        return a[0]
    if t.is_float:  # NaN and -0.0 give +0.0, as torch's (0 < x) - (x < 0) does
        return f"tl.where({a[0]} > 0, 1.0, tl.where({a[0]} < 0, -1.0, tl.where(False, {a[0]}, 0.0)))"
    return f"tl.where({a[0]} > 0, 1, tl.where({a[0]} < 0, -1, 0))"


def signbit(a: Sequence[str], t: Types) -> str:
    if t.operands[0] is DataType.Double:
        return f"({a[0]}.to(tl.int64, bitcast=True) < 0)"
    if t.is_float:
        return f"({a[0]}.to(tl.int32, bitcast=True) < 0)"
    return f"({a[0]} < 0)"


def bitwise_not(a: Sequence[str], t: Types) -> str:
    return f"({a[0]} == 0)" if t.is_bool else f"(~{a[0]})"


def min_max(fn: str) -> Emitter:
    """tl.minimum or tl.maximum; with floats, NaN wins as in torch."""

    def emit(a: Sequence[str], t: Types) -> str:
        if t.is_float:
            return f"tl.{fn}({a[0]}, {a[1]}, propagate_nan=tl.PropagateNan.ALL)"
        return f"tl.{fn}({a[0]}, {a[1]})"

    return emit


def add(a: Sequence[str], t: Types) -> str:
    """bool + bool is their or in torch (a 1-bit integer add would wrap)."""
    return f"({a[0]} | {a[1]})" if t.out is DataType.Bool else f"({a[0]} + {a[1]})"


def addcmul(a: Sequence[str], t: Types) -> str:
    """x + v * (t1 * t2); of floats with each step rounded (the math library's _addcmul); of Bool operands,
    or and and, as torch computes bool arithmetic."""
    if t.out is DataType.Bool:
        return f"({a[0]} | ({a[3]} & ({a[1]} & {a[2]})))"
    if t.out.is_float:
        return f"_addcmul({a[0]}, {a[1]}, {a[2]}, {a[3]})"
    return f"({a[0]} + {a[3]} * ({a[1]} * {a[2]}))"


def div(a: Sequence[str], t: Types) -> str:
    return f"({a[0]} / {a[1]})" if t.out.is_float else f"({a[0]} // {a[1]})"


def fmod(a: Sequence[str], t: Types) -> str:
    """The remainder of truncated division; of floats by the math library's _fmod, as Triton's % of floats
    is not exact on the GPU."""
    return f"_fmod({a[0]}, {a[1]})" if t.is_float else f"({a[0]} % {a[1]})"


def remainder(a: Sequence[str], t: Types) -> str:
    """The remainder with the divisor's sign (Python's %), as torch computes it: from fmod."""
    return f"_float_remainder({a[0]}, {a[1]})" if t.is_float else f"_remainder({a[0]}, {a[1]})"


_INTEGER = re.compile(r"-?\d+")


def _bits(t: Types) -> int:
    return 32 if t.out is DataType.Int32 else 64


def _shifted(a: Sequence[str], t: Types, shift: Callable[[str], str], outside: str) -> str:
    """`shift(amount)` where the amount `a[1]` lies in [0, width), else `outside`; a constant amount is
    decided here, a tensor amount is clamped into the range before the shift. No amount outside the range
    reaches a shift: Triton refuses a constant one, and the GPU's shift of a tensor by one is undefined."""
    bits = _bits(t)
    if _INTEGER.fullmatch(a[1]):
        return shift(a[1]) if 0 <= int(a[1]) < bits else outside
    inside = f"(({a[1]} >= 0) & ({a[1]} < {bits}))"
    return f"tl.where({inside}, {shift(f'tl.where({inside}, {a[1]}, 0)')}, {outside})"


def left_shift(a: Sequence[str], t: Types) -> str:
    """a << b as torch computes it on CUDA: 0 for an amount below 0 or of the width or more."""
    return _shifted(a, t, lambda amount: f"({a[0]} << {amount})", f"tl.where(False, {a[0]}, 0)")


def right_shift(a: Sequence[str], t: Types) -> str:
    """a >> b (arithmetic) as torch computes it on CUDA: an amount below 0 or of the width or more shifts
    by the width - 1 (0 or -1 by the sign of a)."""
    return _shifted(a, t, lambda amount: f"({a[0]} >> {amount})", f"({a[0]} >> {_bits(t) - 1})")


def logical_right_shift(a: Sequence[str], t: Types) -> str:
    """a >> b with zeros shifted in: a shift by nothing or a negative amount keeps the value, by the width
    or more clears it."""
    signed, unsigned = ("tl.int32", "tl.uint32") if t.out is DataType.Int32 else ("tl.int64", "tl.uint64")

    def shift(amount: str) -> str:
        # tl.cast: an operand may be a Python number, which has no .to
        bits = f"tl.cast(tl.cast({a[0]}, {signed}), {unsigned}, bitcast=True)"
        return f"tl.cast({bits} >> tl.cast({amount}, {unsigned}), {signed}, bitcast=True)"

    kept = _shifted(a, t, shift, f"tl.where(False, {a[0]}, 0)")
    if _INTEGER.fullmatch(a[1]):
        return a[0] if int(a[1]) <= 0 else kept
    return f"tl.where({a[1]} <= 0, {a[0]}, {kept})"


def pow_(a: Sequence[str], t: Types) -> str:
    if t.out.is_float:
        return f"_pow({a[0]}, {a[1]})"
    return f"_ipow({a[0]}, {a[1]})"


def nextafter(a: Sequence[str], t: Types) -> str:
    if t.out is DataType.Double:
        return f"_nextafter64({a[0]}, {a[1]})"
    if t.out is DataType.Float:
        return f"_nextafter32({a[0]}, {a[1]})"
    if t.out is DataType.Half:
        return f"_nextafter_half({a[0]}, {a[1]})"
    if t.out is DataType.BFloat16:
        return f"_nextafter_bfloat16({a[0]}, {a[1]})"
    raise UnsupportedError("nextafter is supported on Double, Float, Half and BFloat16 only")


def clamp(a: Sequence[str], t: Types) -> str:
    if t.out.is_float:
        low = f"tl.maximum({a[0]}, {a[1]}, propagate_nan=tl.PropagateNan.ALL)"
        return f"tl.minimum({low}, {a[2]}, propagate_nan=tl.PropagateNan.ALL)"
    return f"tl.minimum(tl.maximum({a[0]}, {a[1]}), {a[2]})"


def where(a: Sequence[str], t: Types) -> str:
    condition = a[0] if t.operands[0] is DataType.Bool else f"({a[0]} != 0)"
    return f"tl.where({condition}, {a[1]}, {a[2]})"
