"""Triton spellings: dtypes, literals, conversions between compute types, and short forms of `pow`.

Every value is held in a compute type: fp16/bf16/fp8 as fp32 (loads upcast at once, stores cast
down), other types as themselves. How each elementwise op is written is its emitter, in the op table
(`hfuse.ops`).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

import torch

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError

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


# -0.0 from its bits: Triton 3.6 builds a constant equal to 0 as the type's null value (+0.0), and its unary
# minus is 0 - x (+0.0 again); a float32 constant, which an operation with a double widens exactly
NEGATIVE_ZERO = "tl.cast(tl.cast(-2147483648, tl.int32), tl.float32, bitcast=True)"


def literal(value: bool | int | float | complex) -> str:
    """A constant as kernel source: a Python number (weakly typed in Triton), or for -0.0 an expression."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        if value == 0 and math.copysign(1.0, value) < 0:
            return NEGATIVE_ZERO
        return repr(value)
    raise UnsupportedError(f"the constant {value!r} is complex; kernels support real numbers only")


def literal_as(value: bool | int | float, dtype: DataType) -> str:
    """A constant already among the values of `dtype`'s compute type, as kernel source of that type: Triton
    types a number below float32's smallest normal as a float64, which would widen a float32 op to float64
    (and change the type of a value a loop carries)."""
    text = literal(value)
    if (
        isinstance(value, float)
        and compute_type(dtype) == "tl.float32"
        and 0 < abs(value) < torch.finfo(torch.float32).tiny
    ):
        return f"tl.cast({text}, tl.float32)"
    return text


def convert(expr: str, source: DataType, target: DataType) -> str:
    """`expr`, held in the compute type of `source`, as a value of `target` in its compute type."""
    if target is DataType.Bool:
        return expr if source is DataType.Bool else f"({expr} != 0)"
    to = compute_type(target)
    if target.is_reduced_float:
        if compute_type(source) != to:  # ints, bools and doubles round through fp32, as torch does
            expr = to_type(expr, to)
        return widen(round_down(expr, target), target)
    if compute_type(source) == to:
        return expr
    helper = FLOAT_TO_INT.get((compute_type(source), to))
    if helper is not None and not _NUMBER.fullmatch(expr):
        return f"{helper}({expr})"
    return to_type(expr, to)


# A float converted to an integer type on the GPU through the PTX conversion itself (mathlib): LLVM takes
# an out-of-range conversion (inf, NaN, 1e30) for poison and may fold a comparison of its result into
# anything, where the instruction saturates as torch's CUDA conversion does (inf is the largest integer).
FLOAT_TO_INT = {
    ("tl.float32", "tl.int64"): "_f32_to_i64",
    ("tl.float32", "tl.int32"): "_f32_to_i32",
    ("tl.float64", "tl.int64"): "_f64_to_i64",
    ("tl.float64", "tl.int32"): "_f64_to_i32",
}


def round_down(expr: str, target: DataType) -> str:
    """A value of a reduced float type, from its fp32 compute value (rounded to nearest even, as torch
    converts: an fp8 value beyond the type's range is NaN or infinite, or saturates, as torch's own)."""
    if _NUMBER.fullmatch(expr):  # a constant operand: a block value for the rounding to work on
        expr = f"tl.cast({expr}, tl.float32)"
    if target is DataType.BFloat16:
        return f"_to_bfloat16({expr})"
    if target is DataType.Float8_e4m3fn:
        return f"_to_float8e4nv({expr}, {e4m3fn_overflow():#x})"
    if target is DataType.Float8_e5m2:
        return f"_to_float8e5({expr})"
    return to_type(expr, storage_type(target))


def widen(expr: str, source: DataType) -> str:
    """A value of a reduced float type (loaded, or rounded down) as its fp32 compute value."""
    if source is DataType.Float8_e4m3fn:
        return f"_from_float8e4nv({expr})"
    if source is DataType.Float8_e5m2:
        return f"_from_float8e5({expr})"
    return to_type(expr, "tl.float32")


@functools.cache
def e4m3fn_overflow() -> int:
    """The Float8_e4m3fn bits this torch gives a value beyond the type's range: 0x7F (NaN) up to torch 2.11,
    0x7E (448, saturated) in later versions, on the CPU and CUDA alike."""
    beyond = torch.tensor(480.0).to(torch.float8_e4m3fn)
    return beyond.view(torch.uint8).item() & 0x7F


_NUMBER = re.compile(r'\(?-?(\d+\.?\d*(e[-+]?\d+)?|float\("-?(inf|nan)"\)|True|False)\)?')


def to_type(expr: str, triton_type: str) -> str:
    """`expr` converted to `triton_type`: a Python number (a constant operand) has no `.to`."""
    return f"tl.cast({expr}, {triton_type})" if _NUMBER.fullmatch(expr) else f"{expr}.to({triton_type})"


def common_tensor_type(dtypes: Sequence[DataType]) -> DataType:
    """The type that tensor operands convert to under Policy.PROMOTE: torch's category order
    bool < int < float, with floats as Float or Double."""
    floats = [d for d in dtypes if d.is_float]
    if floats:
        return DataType.Double if DataType.Double in floats else DataType.Float
    ints = [d for d in dtypes if d.is_int]
    if ints:
        return DataType.Int32 if all(d is DataType.Int32 for d in ints) else DataType.Int
    return DataType.Bool


def power_by_constant(base: str, exponent: float) -> str | None:
    """`base ** exponent` for the exponents that have an exact short form, else None."""
    forms = {
        0.0: f"tl.where(False, {base}, 1.0)",  # 1 for every base, NaN and inf included
        1.0: base,
        2.0: f"({base} * {base})",
        3.0: f"({base} * {base} * {base})",
        0.5: f"tl.sqrt({base})",
        -0.5: f"tl.rsqrt({base})",
        -1.0: f"(1.0 / {base})",
        -2.0: f"(1.0 / ({base} * {base}))",
    }
    return forms.get(float(exponent))
