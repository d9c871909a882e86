"""Math helpers for what Triton computes otherwise than torch on the GPU, as Triton source that the math
library (codegen/mathlib.py) adds to a kernel that calls them:

- `_fmod`, `_float_remainder`: Triton's % of floats is LLVM's frem, which the GPU computes as
  a - b * trunc(a / b), wrong for infinities and for quotients beyond the mantissa;
- `_addcmul`: the GPU contracts a multiply and an add into an fma, which rounds once where torch's ops
  round twice, and keeps a product beyond the largest value finite.

The same code runs in the interpreter, so tests there check what the GPU computes; where the GPU's form
cannot run in the interpreter (libdevice), each place has its own.
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
    at_infinity = tl.where((x != x) | (x == -p), float("nan"), p)
    return tl.where(tl.abs(p) == float("inf"), at_infinity, x + p)
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
