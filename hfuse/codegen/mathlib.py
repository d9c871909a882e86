"""Math helpers for generated kernels, as Triton source (no libdevice: the interpreter lacks it).

Each helper is a `@triton.jit` function copied into a generated module when its name appears there; with
the helpers of codegen/gpu_math.py, for what Triton computes otherwise than torch on the GPU.
Accuracy targets float32: polynomial and series forms follow Cephes (atan), Giles (erfinv) and a
shifted Stirling series (lgamma).
"""

from __future__ import annotations

import re

from hfuse.codegen import gpu_math

_HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "_trunc": (
        """
def _trunc(x):
    return tl.where(x < 0, tl.ceil(x), tl.floor(x))
""",
        (),
    ),
    "_round_half_even": (
        """
def _round_half_even(x):
    down = tl.floor(x)
    rest = x - down
    odd = (down - 2.0 * tl.floor(down * 0.5)) == 1.0
    return tl.where((rest > 0.5) | ((rest == 0.5) & odd), down + 1.0, down)
""",
        (),
    ),
    "_log1p": (
        """
def _log1p(x):
    u = 1.0 + x
    # log(u) * x / (u - 1) cancels the rounding error of 1 + x
    exact = tl.log(u) * (x / (u - 1.0))
    return tl.where(u == 1.0, x, tl.where(u == float("inf"), u, exact))
""",
        (),
    ),
    "_expm1": (
        """
def _expm1(x):
    u = tl.exp(x)
    exact = (u - 1.0) * x / tl.log(u)
    return tl.where(u == 1.0, x, tl.where(u - 1.0 == -1.0, -1.0, tl.where(u == float("inf"), u, exact)))
""",
        (),
    ),
    "_sinh": (
        """
def _sinh(x):
    ax = tl.abs(x)
    u = _expm1(ax)
    r = tl.where(u == float("inf"), u, 0.5 * (u + u / (u + 1.0)))
    # odd: the sign of x (of -0.0 too), NaN as it is
    return tl.where(ax == 0, x, tl.where(x < 0, -r, r))
""",
        ("_expm1",),
    ),
    "_cosh": (
        """
def _cosh(x):
    u = tl.exp(tl.abs(x))
    return 0.5 * (u + 1.0 / u)
""",
        (),
    ),
    "_acosh": (
        """
def _acosh(x):
    # log(2x) where x * x overflows; NaN below 1 (an infinite x * x would give inf)
    r = tl.where(x > 1.0e18, tl.log(x) + 0.6931471805599453, tl.log(x + tl.sqrt(x * x - 1.0)))
    return tl.where(x < 1.0, float("nan"), r)
""",
        (),
    ),
    "_asinh": (
        """
def _asinh(x):
    ax = tl.abs(x)
    small = _log1p(ax + ax * ax / (1.0 + tl.sqrt(1.0 + ax * ax)))
    r = tl.where(ax > 1.0e18, tl.log(ax) + 0.6931471805599453, small)
    return tl.where(x < 0, -r, r)
""",
        ("_log1p",),
    ),
    "_atan": (
        """
def _atan(x):
    ax = tl.abs(x)
    big = ax > 2.414213562373095
    mid = ax > 0.4142135623730950
    base = tl.where(big, 1.5707963267948966, tl.where(mid, 0.7853981633974483, 0.0))
    t = tl.where(big, -1.0 / ax, tl.where(mid, (ax - 1.0) / (ax + 1.0), ax))
    z = t * t
    p = ((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1
    p = p * z * t + t
    r = base + p
    return tl.where(x < 0, -r, r)
""",
        (),
    ),
    "_atan2": (
        """
def _atan2(y, x):
    # as IEEE atan2: the signs of zeros pick the half-plane (atan2(-0.0, -0.0) = -pi), two infinities
    # give odd multiples of pi / 4
    y_negative = (y < 0) | ((y == 0) & (1.0 / y < 0))
    x_negative = (x < 0) | ((x == 0) & (1.0 / x < 0))
    infinite = (tl.abs(y) == float("inf")) & (tl.abs(x) == float("inf"))
    r = _atan(tl.where(infinite, tl.where(y_negative == x_negative, 1.0, -1.0), y / x))
    r = tl.where(x_negative, tl.where(y_negative, r - 3.141592653589793, r + 3.141592653589793), r)
    on_y_axis = tl.where(y > 0, 1.5707963267948966, tl.where(y < 0, -1.5707963267948966, 0.0 * y))
    at_origin = tl.where(x_negative, tl.where(y_negative, -3.141592653589793, 3.141592653589793), on_y_axis)
    return tl.where(x == 0, tl.where(y == 0, at_origin, on_y_axis), r)
""",
        ("_atan",),
    ),
    "_asin": (
        """
def _asin(x):
    return _atan2(x, tl.sqrt((1.0 - x) * (1.0 + x)))
""",
        ("_atan2",),
    ),
    "_acos": (
        """
def _acos(x):
    return _atan2(tl.sqrt((1.0 - x) * (1.0 + x)), x)
""",
        ("_atan2",),
    ),
    "_erfinv": (
        """
def _erfinv(x):
    w = -tl.log((1.0 - x) * (1.0 + x))
    ws = w - 2.5
    p1 = 3.43273939e-07 + 2.81022636e-08 * ws
    p1 = -3.5233877e-06 + p1 * ws
    p1 = -4.39150654e-06 + p1 * ws
    p1 = 0.00021858087 + p1 * ws
    p1 = -0.00125372503 + p1 * ws
    p1 = -0.00417768164 + p1 * ws
    p1 = 0.246640727 + p1 * ws
    p1 = 1.50140941 + p1 * ws
    wl = tl.sqrt(w) - 3.0
    p2 = 0.000100950558 - 0.000200214257 * wl
    p2 = 0.00134934322 + p2 * wl
    p2 = -0.00367342844 + p2 * wl
    p2 = 0.00573950773 + p2 * wl
    p2 = -0.0076224613 + p2 * wl
    p2 = 0.00943887047 + p2 * wl
    p2 = 1.00167406 + p2 * wl
    p2 = 2.83297682 + p2 * wl
    r = tl.where(w < 5.0, p1, p2) * x
    # the series goes to nan at |x| = 1, where erfinv is +-inf
    return tl.where(tl.abs(x) == 1.0, x * float("inf"), r)
""",
        (),
    ),
    "_lgamma_positive": (
        """
def _lgamma_positive(x):
    # lgamma(x) = lgamma(x + n) - log(x (x + 1) ... (x + n - 1)), then Stirling's series at x + n >= 8
    product = x * 0.0 + 1.0
    y = x
    for _ in tl.static_range(8):
        small = y < 8.0
        product = tl.where(small, product * y, product)
        y = tl.where(small, y + 1.0, y)
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv * (0.08333333333333333 - inv2 * (0.002777777777777778 - inv2 * 0.0007936507936507937))
    return (y - 0.5) * tl.log(y) - y + 0.9189385332046727 + series - tl.log(product)
""",
        (),
    ),
    "_lgamma": (
        """
def _lgamma(x):
    reflect = x < 0.5
    r = _lgamma_positive(tl.where(reflect, 1.0 - x, x))
    # reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    s = tl.abs(tl.sin(3.141592653589793 * (x - tl.floor(x))))
    r = tl.where(reflect, 1.1447298858494002 - tl.log(s) - r, r)
    # near 0, lgamma(x) = -log|x| - gamma x + O(x^2): the reflection loses it to rounding
    r = tl.where(tl.abs(x) < 1.0e-6, -tl.log(tl.abs(x)) - 0.5772156649015329 * x, r)
    # the poles (0 and the negative integers, every float below -2**52) and both infinities give inf
    return tl.where((tl.abs(x) == float("inf")) | (reflect & (x == tl.floor(x))), float("inf"), r)
""",
        ("_lgamma_positive",),
    ),
    "_pow": (
        """
def _pow(a, b):
    magnitude = tl.exp2(b * tl.log2(tl.abs(a)))
    whole = tl.floor(b) == b
    odd = whole & ((b - 2.0 * tl.floor(b * 0.5)) == 1.0)
    # the sign of -0.0 counts; a negative base to a fractional power is NaN, but -inf's is +inf or +0
    negative = (a < 0) | ((a == 0) & (1.0 / a < 0))
    r = tl.where(negative & odd, -magnitude, magnitude)
    r = tl.where((a < 0) & (a != float("-inf")) & (whole == 0), float("nan"), r)
    r = tl.where(b == 1, a, r)  # exp2(log2(x)) rounds the largest values up to inf
    # as IEEE pow: (-1) ** +-inf is 1
    return tl.where((b == 0) | (a == 1) | ((a == -1) & (tl.abs(b) == float("inf"))), 1.0, r)
""",
        (),
    ),
    "_ipow": (
        """
def _ipow(a, b):
    result = a * 0 + b * 0 + 1
    base = a + b * 0
    exponent = b + a * 0
    for _ in range(64):
        result = tl.where((exponent & 1) == 1, result * base, result)
        base = base * base
        exponent = exponent >> 1
    # a negative exponent truncates 1 / a ** -b to 0, but for a base of 1 or -1 (as torch on CUDA)
    negative = tl.where(a == 1, 1, tl.where(a == -1, 1 - 2 * (b & 1), 0))
    return tl.where(b < 0, negative + result * 0, result)
""",
        (),
    ),
    "_remainder": (
        """
def _remainder(a, b):
    # of integers: the remainder of truncated division, moved to the divisor's side of zero
    r = a % b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
""",
        (),
    ),
    "_gcd": (
        """
def _gcd(a, b):
    x = tl.abs(a + b * 0)
    y = tl.abs(b + a * 0)
    for _ in range(96):
        nonzero = y != 0
        rest = x % tl.where(nonzero, y, 1)
        x = tl.where(nonzero, y, x)
        y = tl.where(nonzero, rest, 0)
    return x
""",
        (),
    ),
    "_nextafter_toward": (
        """
def _nextafter_toward(a, b, r, tiniest):
    # r: a one unit of its bits toward b; from zero the tiniest value on b's side; b where a == b; NaN in
    # either gives NaN
    r = tl.where(a == 0, tiniest, r)
    r = tl.where(a == b, b, r)
    return tl.where((a != a) | (b != b), a + b, r)
""",
        (),
    ),
    "_nextafter32": (
        """
def _nextafter32(a, b):
    bits = a.to(tl.int32, bitcast=True)
    step = tl.where((b > a) == (a > 0), 1, -1)
    r = (bits + step).to(tl.float32, bitcast=True)
    tiniest = tl.where(b > 0, 1, -2147483647).to(tl.float32, bitcast=True)
    return _nextafter_toward(a, b, r, tiniest)
""",
        ("_nextafter_toward",),
    ),
    "_nextafter64": (
        """
def _nextafter64(a, b):
    bits = a.to(tl.int64, bitcast=True)
    step = tl.where((b > a) == (a > 0), 1, -1).to(tl.int64)
    r = (bits + step).to(tl.float64, bitcast=True)
    tiniest = tl.where(b > 0, 1, -9223372036854775807).to(tl.int64).to(tl.float64, bitcast=True)
    return _nextafter_toward(a, b, r, tiniest)
""",
        ("_nextafter_toward",),
    ),
    "_nextafter_half": (
        """
def _nextafter_half(a, b):
    # a and b go to Half as torch converts them (2**40 is inf): the step is one unit of a's Half bits
    half = a.to(tl.float16)
    a = half.to(tl.float32)
    b = b.to(tl.float16).to(tl.float32)
    bits = half.to(tl.int16, bitcast=True).to(tl.int32)
    step = tl.where((b > a) == (a > 0), 1, -1)
    r = (bits + step).to(tl.int16).to(tl.float16, bitcast=True).to(tl.float32)
    tiniest = tl.where(b > 0, 1, -32767).to(tl.int16).to(tl.float16, bitcast=True).to(tl.float32)
    return _nextafter_toward(a, b, r, tiniest)
""",
        ("_nextafter_toward",),
    ),
    "_nextafter_bfloat16": (
        """
def _nextafter_bfloat16(a, b):
    # a and b go to BFloat16 as torch converts them, held in float32 as its upper 16 bits: the step is
    # 2**16 of a's float32 bits
    a = _to_bfloat16(a).to(tl.float32)
    b = _to_bfloat16(b).to(tl.float32)
    bits = a.to(tl.int32, bitcast=True)
    step = tl.where((b > a) == (a > 0), 65536, -65536)
    r = (bits + step).to(tl.float32, bitcast=True)
    tiniest = tl.where(b > 0, 65536, -2147418112).to(tl.float32, bitcast=True)
    return _nextafter_toward(a, b, r, tiniest)
""",
        ("_nextafter_toward", "_to_bfloat16"),
    ),
    "_lerp": (
        """
def _lerp(start, end, weight):
    diff = end - start
    # as torch: from the nearer end, where |weight| < 0.5 (a negative weight too), each in one rounding as
    # torch's compiled kernels contract it (max - 2 * max is -max, not max - inf)
    return tl.where(tl.abs(weight) < 0.5, tl.fma(weight, diff, start), tl.fma(-diff, 1.0 - weight, end))
""",
        (),
    ),
    "_multiply": (
        """
def _multiply(a, b):
    return a * b
""",
        (),
    ),
    # random streams, as hfuse/ops/philox.py defines them (nvFuser's runtime/random_numbers.cu)
    "_philox": (
        """
def _philox(seed, offset, subsequence):
    # Philox-4x32-10 (Random123): key = the seed's two 32-bit words, counter = (offset, subsequence) as
    # four 32-bit words, low words first; the high half of each 32-bit product from a 64-bit product
    seed = tl.cast(seed, tl.int64)
    offset = tl.cast(offset, tl.int64)
    subsequence = tl.cast(subsequence, tl.int64)
    k0 = (seed & 0xFFFFFFFF).to(tl.uint32)
    k1 = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
    c0 = (offset & 0xFFFFFFFF).to(tl.uint32)
    c1 = ((offset >> 32) & 0xFFFFFFFF).to(tl.uint32)
    c2 = (subsequence & 0xFFFFFFFF).to(tl.uint32)
    c3 = ((subsequence >> 32) & 0xFFFFFFFF).to(tl.uint32)
    for _ in tl.static_range(10):
        p0 = c0.to(tl.uint64) * 0xD2511F53
        p2 = c2.to(tl.uint64) * 0xCD9E8D57
        high0 = (p0 >> 32).to(tl.uint32)
        high2 = (p2 >> 32).to(tl.uint32)
        c0, c1, c2, c3 = high2 ^ c1 ^ k0, p2.to(tl.uint32), high0 ^ c3 ^ k1, p0.to(tl.uint32)
        k0 = k0 + 0x9E3779B9
        k1 = k1 + 0xBB67AE85
    return c0, c1, c2, c3
""",
        (),
    ),
    "_unit": (
        """
def _unit(x):
    # a 32-bit word as a float32 in (0, 1]: x * 2^-32 + 2^-33
    return x.to(tl.float32) * 2.3283064365386963e-10 + 1.1641532182693481e-10
""",
        (),
    ),
    "_unit64": (
        """
def _unit64(x, y):
    # two 32-bit words as a float64 in (0, 1]: (x ^ (y << 21)) * 2^-53 + 2^-54
    z = x.to(tl.uint64) ^ (y.to(tl.uint64) << 21)
    return z.to(tl.float64) * 1.1102230246251565e-16 + 5.551115123125783e-17
""",
        (),
    ),
    "_rand_unit": (
        """
def _rand_unit(seed, offset, position):
    # element `position` of a float32 stream: word position % 4 of subsequence position // 4
    position = tl.cast(position, tl.int64)
    r0, r1, r2, r3 = _philox(seed, offset, position // 4)
    c = position % 4
    return _unit(tl.where(c == 0, r0, tl.where(c == 1, r1, tl.where(c == 2, r2, r3))))
""",
        ("_philox", "_unit"),
    ),
    "_rand_unit64": (
        """
def _rand_unit64(seed, offset, position):
    # element `position` of a float64 stream: words 2c, 2c + 1 (c = position % 2) of subsequence position // 2
    position = tl.cast(position, tl.int64)
    r0, r1, r2, r3 = _philox(seed, offset, position // 2)
    first = position % 2 == 0
    return _unit64(tl.where(first, r0, r2), tl.where(first, r1, r3))
""",
        ("_philox", "_unit64"),
    ),
    "_rand_normal": (
        """
def _rand_normal(seed, offset, position):
    # Box-Muller over words (c & 2, c & 2 + 1), c = position % 4: sin for even c, cos for odd
    position = tl.cast(position, tl.int64)
    r0, r1, r2, r3 = _philox(seed, offset, position // 4)
    c = position % 4
    u = _unit(tl.where(c < 2, r0, r2))
    v = _unit(tl.where(c < 2, r1, r3))
    u = tl.where(u == 1.0, 0.0, u)
    v = tl.where(v == 1.0, 0.0, v) * 6.2831854820251465
    radius = tl.sqrt(-2.0 * tl.log(u))
    return tl.where(c % 2 == 0, radius * tl.sin(v), radius * tl.cos(v))
""",
        ("_philox", "_unit"),
    ),
    "_rand_normal64": (
        """
def _rand_normal64(seed, offset, position):
    # Box-Muller over all four words of subsequence position // 2: sin for even positions, cos for odd
    position = tl.cast(position, tl.int64)
    r0, r1, r2, r3 = _philox(seed, offset, position // 2)
    u = _unit64(r0, r1)
    v = _unit64(r2, r3)
    u = tl.where(u == 1.0, 0.0, u)
    v = tl.where(v == 1.0, 0.0, v) * 6.283185307179586
    radius = tl.sqrt(-2.0 * tl.log(u))
    return tl.where(position % 2 == 0, radius * tl.sin(v), radius * tl.cos(v))
""",
        ("_philox", "_unit64"),
    ),
}


def _ptx_or_triton(
    name: str,
    interpreted: str,
    ptx: str,
    constraints: str = "=f,f",
    operand: str = "x",
    dtype: str = "tl.float32",
) -> str:
    """`name(x)`: on a GPU the PTX instruction `ptx` applied to `operand`, an opaque step the compiler
    cannot rewrite; in the interpreter, which runs no PTX, the Triton expression `interpreted`."""
    return f"""

if os.environ.get("TRITON_INTERPRET") == "1":

    @triton.jit
    def {name}(x):
        return {interpreted}

else:

    @triton.jit
    def {name}(x):
        return tl.inline_asm_elementwise(
            "{ptx} $0, $1;", "{constraints}", [{operand}], dtype={dtype}, is_pure=True, pack=1
        )
"""


def _int_operand(name: str, rounded: str) -> str:
    """An integer operand in float32 math: on a GPU straight, in the interpreter as `rounded`, its value
    in the 16-bit type."""
    return f"""

if os.environ.get("TRITON_INTERPRET") == "1":

    @triton.jit
    def {name}(x):
        return {rounded}.to(tl.float32)

else:

    @triton.jit
    def {name}(x):
        return x.to(tl.float32)
"""


def _nan_rows(name: str, reduce: str, pairwise: str, triton_pairwise: str) -> str:
    """A max or min along axis 1 where a NaN in a row makes the row's result NaN, as in torch."""
    return f"""

if os.environ.get("TRITON_INTERPRET") == "1":
    # A custom combine runs element by element in the interpreter: the NaN are found by a second reduction.
    @triton.jit
    def {name}(x):
        nan = x != x
        found = {reduce}(tl.where(nan, 0, x), axis=1)
        return tl.where(tl.max(nan.to(tl.int8), axis=1) > 0, tl.sum(tl.where(nan, x, 0), axis=1), found)

else:

    @triton.jit
    def {pairwise}(a, b):
        return {triton_pairwise}(a, b, propagate_nan=tl.PropagateNan.ALL)

    @triton.jit
    def {name}(x):
        return tl.reduce(x, 1, {pairwise})
"""


# Written out whole (not through _HELPERS): the definition depends on where the kernel runs.
_BY_PLACE = {
    "_to_bfloat16": """

if os.environ.get("TRITON_INTERPRET") == "1":
    # The interpreter's fp32 -> bf16 cast truncates: round to nearest even by hand, then the cast is exact.
    @triton.jit
    def _to_bfloat16(x):
        bits = x.to(tl.uint32, bitcast=True)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).to(tl.float32, bitcast=True)
        return tl.where(x != x, x, rounded).to(tl.bfloat16)

else:

    @triton.jit
    def _to_bfloat16(x):
        return x.to(tl.bfloat16)
""",
    # floor, ceil, sqrt and rsqrt of float32: Triton's own forms flush subnormal inputs to zero on a GPU
    # (floor(-1e-40) is -0.0 there, sqrt(-1e-40) -0.0); the PTX instruction without .ftz keeps them, as
    # torch's CUDA kernels do (and sqrt.rn rounds to nearest, as torch's sqrt does).
    **{
        name: _ptx_or_triton(name, f"{triton}(x)", ptx)
        for name, ptx, triton in (
            ("_floor_f32", "cvt.rmi.f32.f32", "tl.floor"),
            ("_ceil_f32", "cvt.rpi.f32.f32", "tl.ceil"),
            ("_sqrt_f32", "sqrt.rn.f32", "tl.sqrt"),
            ("_rsqrt_f32", "rsqrt.approx.f32", "tl.rsqrt"),
        )
    },
    # A float converted to an integer type by the PTX instruction Triton's conversion lowers to, as an
    # opaque step (emit.FLOAT_TO_INT says why).
    **{
        name: _ptx_or_triton(name, f"x.to({target})", ptx, constraints, dtype=target)
        for name, ptx, constraints, target in (
            ("_f32_to_i64", "cvt.rzi.s64.f32", "=l,f", "tl.int64"),
            ("_f32_to_i32", "cvt.rzi.s32.f32", "=r,f", "tl.int32"),
            ("_f64_to_i64", "cvt.rzi.s64.f64", "=l,d", "tl.int64"),
            ("_f64_to_i32", "cvt.rzi.s32.f64", "=r,d", "tl.int32"),
        )
    },
    # An integer tensor beside a 16-bit float one in an op: torch's CUDA kernels convert it straight to the
    # op's float32 math, its CPU kernels to the 16-bit type first (2**40 is inf in Half there). Each
    # place follows its torch, so that the reference a kernel is validated against agrees with it.
    "_int_operand_in_half": _int_operand("_int_operand_in_half", "x.to(tl.float32).to(tl.float16)"),
    "_int_operand_in_bfloat16": _int_operand("_int_operand_in_bfloat16", "_to_bfloat16(x.to(tl.float32))"),
    # exp(x - m) of an online softmax sum, m the running max: on the GPU the ex2 that flushes results below
    # 2**-126 to zero, two instructions an element where tl.exp's ex2 takes five. Each block's terms are
    # added to a running sum that then holds exp(0) = 1 (of the running max), where a term below 2**-126
    # is lost in rounding anyway, so the sum is the same to the bit. Measured on an H200: logsumexp over
    # [4093, 50257] bf16 132.7 -> 124.3 us, cross-entropy over [4096, 128256] bf16 299.9 -> 261.6. The
    # factor is log2(e) rounded to float32, as tl.exp rounds it.
    "_exp_summand": _ptx_or_triton(
        "_exp_summand", "tl.exp(x)", "ex2.approx.ftz.f32", operand="x * 1.4426950408889634"
    ),
    # tl.max and tl.min skip NaN; in torch a NaN in a row makes its max and min NaN.
    "_max_rows": _nan_rows("_max_rows", "tl.max", "_maximum", "tl.maximum"),
    "_min_rows": _nan_rows("_min_rows", "tl.min", "_minimum", "tl.minimum"),
}

_CALL = re.compile(r"\b(_[a-z0-9_]+)\b")


_ALL = {**_HELPERS, **gpu_math.HELPERS}
_ALL_BY_PLACE = {**_BY_PLACE, **gpu_math.BY_PLACE}


def helpers_for(kernel_text: str) -> str:
    """The source of every helper the kernel calls, and the helpers those call."""
    wanted: list[str] = []
    pending = [name for name in _CALL.findall(kernel_text) if name in _ALL or name in _ALL_BY_PLACE]
    while pending:
        name = pending.pop(0)
        if name in wanted:
            continue
        wanted.append(name)
        if name in _ALL:
            pending.extend(_ALL[name][1])
        else:  # a helper written out whole (by place): the helpers its source calls
            called = _CALL.findall(_ALL_BY_PLACE[name])
            pending.extend(n for n in called if n != name and (n in _ALL or n in _ALL_BY_PLACE))
    text = "".join(f"\n\n@triton.jit{_ALL[name][0]}" for name in sorted(wanted) if name in _ALL)
    return text + "".join(source for name, source in _ALL_BY_PLACE.items() if name in wanted)
