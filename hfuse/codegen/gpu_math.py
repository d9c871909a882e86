"""Math helpers for what Triton computes otherwise than torch on the GPU, as Triton source that the math
library (codegen/mathlib.py) adds to a kernel that calls them:

- `_fmod`, `_float_remainder`: Triton's % of floats is LLVM's frem, which the GPU computes as
  a - b * trunc(a / b), wrong for infinities and for quotients beyond the mantissa;
- `_addcmul`: the GPU contracts a multiply and an add into an fma, which rounds once where torch's ops
  round twice, and keeps a product beyond the largest value finite;
- `_sin`, `_cos`, `_tan`: through libdevice's sin, cos and tan, the functions torch's CUDA kernels call, so
  that they agree with torch's at any argument (a GPU test at +-1.7e38 and at float denormals);
- `_to_float8e4nv`, `_to_float8e5`: Triton's conversions to fp8 saturate on the GPU where torch's give NaN
  or infinity, and round ties up in the interpreter; `_from_float8e4nv`, `_from_float8e5`: the
  interpreter reads the fp8 bits of NaN and the infinities as numbers.

The same code runs in the interpreter, so tests there check what the GPU computes; where the GPU's form
cannot run in the interpreter (libdevice), or only the interpreter needs a fix, each place has its own.
"""

from __future__ import annotations

HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "_float_remainder": (
        """
def _float_remainder(a, b):
    # as torch on CUDA: fmod, moved to the divisor's side of zero
    r = _fmod(a, b)
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
""",
        ("_fmod",),
    ),
    "_addcmul": (
        """
def _addcmul(x, t1, t2, v):
    # x + v * (t1 * t2), each step rounded as torch's ops round it. The GPU contracts the last multiply and
    # add into an fma, which keeps a product beyond the largest value finite (-inf + 3e38 * 3e38 would be
    # -inf, not NaN): where the rounded product is infinite, the sum is that infinity, NaN against the other
    p = v * (t1 * t2)
    x, p = tl.broadcast(x, p)  # a one-element x read as a number: the interpreter tests a 0-d x as a float
    at_infinity = tl.where((x != x) | (x == -p), float("nan"), p)
    return tl.where(tl.abs(p) == float("inf"), at_infinity, x + p)
""",
        (),
    ),
    "_to_float8e4nv": (
        """
def _to_float8e4nv(x, overflow):
    # torch's Float8_e4m3fn(float), bit for bit (c10's fp8e4m3fn_from_fp32_value): to nearest even, NaN as
    # NaN, and a value rounding beyond the largest (448), infinities too, to the bits `overflow`: NaN (0x7F)
    # up to torch 2.11, 448 (0x7E) since. Triton's conversion saturates on the GPU and rounds ties up in
    # the interpreter.
    bits = x.to(tl.int32, bitcast=True)
    magnitude = bits & 0x7FFFFFFF
    # below 2**-6 a denormal: adding 2**14 rounds it to its last place, which the low bits then hold
    denormal = (magnitude.to(tl.float32, bitcast=True) + 16384.0).to(tl.int32, bitcast=True) - 0x46800000
    # else 3 bits of mantissa, to nearest even, and the exponent's bias from 127 to 7
    normal = (magnitude - 0x3C000000 + 0x7FFFF + ((magnitude >> 20) & 1)) >> 20
    r = tl.where(magnitude < 0x3C800000, denormal, normal)
    r = tl.where(r == 0x7F, overflow, r)
    r = tl.where(magnitude >= 0x43F00000, tl.where(magnitude > 0x7F800000, 0x7F, overflow), r)
    return (r | ((bits >> 24) & 0x80)).to(tl.uint8).to(tl.float8e4nv, bitcast=True)
""",
        (),
    ),
    "_to_float8e5": (
        """
def _to_float8e5(x):
    # torch's Float8_e5m2(float), bit for bit (c10's fp8e5m2_from_fp32_value): to nearest even, NaN as NaN,
    # and a value rounding beyond the largest (57344) to infinity, where Triton's conversion saturates on
    # the GPU
    bits = x.to(tl.int32, bitcast=True)
    magnitude = bits & 0x7FFFFFFF
    # below 2**-14 a denormal: adding 2**7 rounds it to its last place, which the low bits then hold
    denormal = (magnitude.to(tl.float32, bitcast=True) + 128.0).to(tl.int32, bitcast=True) - 0x43000000
    # else 2 bits of mantissa, to nearest even, and the exponent's bias from 127 to 15
    normal = (magnitude - 0x38000000 + 0xFFFFF + ((magnitude >> 21) & 1)) >> 21
    r = tl.where(magnitude < 0x38800000, denormal, normal)
    r = tl.where(magnitude >= 0x47800000, tl.where(magnitude > 0x7F800000, 0x7F, 0x7C), r)
    return (r | ((bits >> 24) & 0x80)).to(tl.uint8).to(tl.float8e5, bitcast=True)
""",
        (),
    ),
    # fp8 to float32 from the bits: a NaN keeps its sign (Triton's conversion on the GPU gives every NaN
    # the positive one, which a cast back to fp8 would write as 0x7F where torch writes 0xFF), and the
    # interpreter reads fp8 NaN and infinities as the numbers they are
    "_from_float8e4nv": (
        """
def _from_float8e4nv(x):
    bits = x.to(tl.uint8, bitcast=True)
    nan = tl.where(bits >= 0x80, -4194304, 2143289344).to(tl.float32, bitcast=True)  # 0xFFC00000, 0x7FC00000
    return tl.where((bits & 0x7F) == 0x7F, nan, x.to(tl.float32))
""",
        (),
    ),
    "_from_float8e5": (
        """
def _from_float8e5(x):
    bits = x.to(tl.uint8, bitcast=True)
    infinity = tl.where(bits >= 0x80, float("-inf"), float("inf"))
    nan = tl.where(bits >= 0x80, -4194304, 2143289344).to(tl.float32, bitcast=True)
    special = tl.where((bits & 0x7F) == 0x7C, infinity, nan)
    return tl.where((bits & 0x7F) >= 0x7C, special, x.to(tl.float32))
""",
        (),
    ),
}

# Written out whole: the definition depends on where the kernel runs.
BY_PLACE = {
    "_fmod": """

if os.environ.get("TRITON_INTERPRET") == "1":
    # The interpreter has no libdevice; its % of floats is numpy's fmod, which is exact.
    @triton.jit
    def _fmod(a, b):
        return a % b

else:
    from triton.language.extra import libdevice

    # libdevice's fmod is exact. In double: Triton has libdevice flush float denormals to zero, but they are
    # normal doubles, and the remainder of two floats is a float, exactly.
    @triton.jit
    def _fmod(a, b):
        return libdevice.fmod(a.to(tl.float64), b.to(tl.float64)).to(a.dtype)
""",
}


def _trigonometric(name: str, interpreted: str, tiny: str) -> str:
    """`name` as numpy computes it in the interpreter, and through libdevice on the GPU. Triton has libdevice
    flush float denormals to zero: below the smallest normal float, sin(x) and tan(x) are x and cos(x) is 1,
    exactly."""
    return f"""

if os.environ.get("TRITON_INTERPRET") == "1":

    @triton.jit
    def _{name}(x):
        return {interpreted}

else:
    from triton.language.extra import libdevice

    @triton.jit
    def _{name}(x):
        return tl.where(tl.abs(x) < 1.1754943508222875e-38, {tiny}, libdevice.{name}(x)).to(x.dtype)
"""


BY_PLACE.update(
    _sin=_trigonometric("sin", "tl.sin(x)", "x"),
    _cos=_trigonometric("cos", "tl.cos(x)", "1.0"),
    _tan=_trigonometric("tan", "tl.sin(x) / tl.cos(x)", "x"),
)
