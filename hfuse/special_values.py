"""The values on which ops go wrong first: NaN, +-inf, +-0.0, denormals, each type's extremes, integer
extremes and shift widths, and scalar operands out of a tensor's range.

The special-value tests sweep every op of the op table over them, through the generated kernels, against
the torch reference.
"""

from __future__ import annotations

import math

import torch

from hfuse.dtypes import DataType

Number = bool | int | float

NAN, INF = math.nan, math.inf

# Scalar operands of each nvFuser scalar type: out-of-range integers (for Int32 and Bool tensors), floats
# out of Float's range, and the values a comparison or a cast decides on.
SCALAR_SPECIALS: dict[DataType, tuple[Number, ...]] = {
    DataType.Double: (NAN, INF, -INF, -0.0, 2.5, -7.0, 1e30, 1e300, -1e300, 1e-300),
    DataType.Int: (0, 1, -7, 31, 2**40, -(2**40), 2**63 - 1, -(2**63)),
    DataType.Bool: (False, True),
}


def special_values(dtype: DataType) -> tuple[Number, ...]:
    """The special values of a tensor of `dtype`, each exactly representable in it, NaN first among the
    floating-point ones: NaN, +-inf, +-0.0, ordinary values, the smallest denormal, the smallest normal,
    the largest value and the lowest. Integers: 0, small values, shift widths and the extremes."""
    if dtype is DataType.Bool:
        return (False, True)
    if dtype.is_int:
        info = torch.iinfo(dtype.torch)
        bits = info.bits
        signed = (-1, -7, info.min, info.min + 1) if info.min < 0 else ()
        return (0, 1, 2, 3, bits - 1, bits, info.max, info.max - 1, *signed)
    if not dtype.is_float:
        raise ValueError(f"DataType.{dtype.name} has no special values")
    info = torch.finfo(dtype.torch)
    denormal = info.smallest_normal * info.eps
    values = (NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, denormal, -denormal,
              info.smallest_normal, info.max, info.min)  # fmt: skip
    return _held(values, dtype)


def _held(values: tuple[float, ...], dtype: DataType) -> tuple[float, ...]:
    """`values` as `dtype` holds them (a type without infinities makes them NaN), without repeats."""
    held = torch.tensor(values, dtype=torch.float64).to(dtype.torch).double().tolist()
    seen: list[float] = []
    for value in held:
        if not any(_same(value, other) for other in seen):
            seen.append(value)
    return tuple(seen)


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
