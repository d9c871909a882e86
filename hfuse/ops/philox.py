"""The random ops' values: Philox-4x32-10 streams mapped to floats as nvFuser defines them, in exact torch
integer ops (the reference; kernels compute the same function, see hfuse/codegen/rng.py).

The definition follows nvFuser's runtime (`runtime/random_numbers.cu`: `philox`, `uniformf`, `uniform`,
`normalf`, `normal`, `rng_uniform_range*`, `rng_normal_general*`) and its lowering of RNG ops
(`csrc/device_lower/pass/rng.cpp`, `RNGOp::getPhiloxMultiple`):

- Element i of an op's result (its row-major position in that result, n elements in all) with seed s and
  offset o: with m = 2 for Double results and 4 otherwise, subsequence q = i // m and component c = i % m,
  the four 32-bit words r0..r3 = Philox-4x32-10(key = (s mod 2^32, s >> 32 mod 2^32),
  counter = (o mod 2^32, o >> 32 mod 2^32, q mod 2^32, q >> 32 mod 2^32)) (Random123's Philox, 10 rounds).
- unit(x) = float32(x) * 2^-32 + 2^-33 in float32, in (0, 1]; unit64(x, y) = float64(x ^ (y << 21)) * 2^-53
  + 2^-54 in float64. nvFuser maps an exact 1 to 0 ("remapped" below), except where said.
- uniform(low, high), Float: low + (high - low) * remapped unit(r_c), in float32 (low, high rounded to
  float32). Half and BFloat16: v = the same with unit(r_c) not remapped, rounded to the dtype; v equal to
  high (rounded) becomes low (rounded). Double: low + (high - low) * remapped unit64(r_2c, r_2c+1).
- normal(mean, std), Float, Half, BFloat16: with x = r_(c & 2), y = r_(c & 2 + 1), u = remapped unit(x),
  v = remapped unit(y) * float32(2 pi), sqrt(-2 log u) * (sin v if c is even else cos v) * std + mean in
  float32, rounded to the dtype. Double: u = remapped unit64(r0, r1), v = remapped unit64(r2, r3) * 2 pi,
  sqrt(-2 log u) * (sin v if c == 0 else cos v) * std + mean in float64.

nvFuser skips the affine step when low, high (mean, std) are the constants 0 and 1; the values are the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.ops.meaning import Tensor

MASK32 = 0xFFFFFFFF
ROUND_A, ROUND_B = 0xD2511F53, 0xCD9E8D57  # Philox-4x32 multipliers
KEY_A, KEY_B = 0x9E3779B9, 0xBB67AE85  # Weyl key increments
ROUNDS = 10
TWO_PI_F32 = 6.2831854820251465  # nvFuser's 6.2831855f, float32(2 pi)
TWO_PI_F64 = 6.283185307179586
CHUNK = 1 << 22  # subsequences computed at a time: bounds the reference's temporaries

Words = tuple[Tensor, Tensor, Tensor, Tensor]


def _mulhilo(a: int, b: Tensor) -> tuple[Tensor, Tensor]:
    """(high, low) 32-bit halves of a * b for a constant a < 2^32 and int64 words b < 2^32, in int64 without
    overflow: b times each 16-bit half of a stays below 2^48."""
    low_product, high_product = b * (a & 0xFFFF), b * (a >> 16)
    high = (high_product + (low_product >> 16)) >> 16
    low = (((high_product & 0xFFFF) << 16) + low_product) & MASK32
    return high, low


def philox4x32(counter: Words, key: tuple[int, int]) -> Words:
    """Philox-4x32-10 of 32-bit counter words (int64 tensors that broadcast) under 32-bit key words."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(ROUNDS):
        high0, low0 = _mulhilo(ROUND_A, c0)
        high2, low2 = _mulhilo(ROUND_B, c2)
        c0, c1, c2, c3 = high2 ^ c1 ^ k0, low2, high0 ^ c3 ^ k1, low0
        k0, k1 = (k0 + KEY_A) & MASK32, (k1 + KEY_B) & MASK32
    return c0, c1, c2, c3


def stream_words(seed: int, offset: int, subsequences: Tensor) -> Tensor:
    """The four words of each subsequence of the stream (seed, offset): shape [len(subsequences), 4]."""
    like = torch.zeros_like(subsequences)
    counter = (like + (offset & MASK32), like + ((offset >> 32) & MASK32), subsequences & MASK32,
               (subsequences >> 32) & MASK32)  # fmt: skip
    return torch.stack(philox4x32(counter, (seed & MASK32, (seed >> 32) & MASK32)), dim=-1)


def _unit(x: Tensor) -> Tensor:
    return x.to(torch.float32) * 2.0**-32 + 2.0**-33


def _unit64(x: Tensor, y: Tensor) -> Tensor:
    return (x ^ (y << 21)).to(torch.float64) * 2.0**-53 + 2.0**-54


def _remapped(u: Tensor) -> Tensor:
    return torch.where(u == 1.0, torch.zeros_like(u), u)


def _f32(value: float) -> Tensor:
    return torch.tensor(value, dtype=torch.float32)


def _rounded(values: Tensor, dtype: DataType) -> Tensor:
    """Float32 values rounded to a reduced float dtype, held as float32."""
    return values.to(dtype.torch).to(torch.float32)


def _uniform(words: Tensor, n: int, low: float, high: float, dtype: DataType) -> Tensor:
    if dtype is DataType.Double:
        pairs = words.reshape(-1, 2, 2)
        u = _remapped(_unit64(pairs[..., 0], pairs[..., 1])).reshape(-1)[:n]
        return low + (high - low) * u
    low32, high32 = _f32(low).to(words.device), _f32(high).to(words.device)
    u = _unit(words.reshape(-1)[:n])
    if dtype is DataType.Float:
        return low32 + (high32 - low32) * _remapped(u)
    values = _rounded(low32 + (high32 - low32) * u, dtype)
    return torch.where(values == _rounded(high32, dtype), _rounded(low32, dtype), values)


def _normal(words: Tensor, n: int, mean: float, std: float, dtype: DataType) -> Tensor:
    if dtype is DataType.Double:
        u = _remapped(_unit64(words[:, 0], words[:, 1]))
        v = _remapped(_unit64(words[:, 2], words[:, 3])) * TWO_PI_F64
        radius = torch.sqrt(-2.0 * torch.log(u))
        standard = torch.stack([radius * torch.sin(v), radius * torch.cos(v)], dim=-1).reshape(-1)[:n]
        return standard * std + mean
    u = _remapped(_unit(words[:, [0, 0, 2, 2]].reshape(-1)[:n]))
    v = _remapped(_unit(words[:, [1, 1, 3, 3]].reshape(-1)[:n])) * TWO_PI_F32
    radius = torch.sqrt(-2.0 * torch.log(u))
    even = torch.arange(n, device=words.device) % 2 == 0
    standard = torch.where(even, radius * torch.sin(v), radius * torch.cos(v))
    values = standard * _f32(std).to(words.device) + _f32(mean).to(words.device)
    return values if dtype is DataType.Float else _rounded(values, dtype)


def random_values(
    normal: bool, numel: int, params: tuple[float, float], seed: int, offset: int, dtype: DataType,
    device: torch.device,
) -> Tensor:  # fmt: skip
    """The `numel` values of a uniform (params low, high) or normal (mean, std) op, flat, in float64 for
    Double and float32 otherwise (reduced floats already rounded to their dtype)."""
    per_subsequence = 2 if dtype is DataType.Double else 4
    distribution = _normal if normal else _uniform
    pieces = []
    for start in range(0, math.ceil(numel / per_subsequence), CHUNK):
        first = start * per_subsequence
        count = min(CHUNK * per_subsequence, numel - first)
        subsequences = torch.arange(start, start + math.ceil(count / per_subsequence), device=device)
        pieces.append(distribution(stream_words(seed, offset, subsequences), count, *params, dtype))
    compute = torch.float64 if dtype is DataType.Double else torch.float32
    return torch.cat(pieces) if pieces else torch.zeros(0, dtype=compute, device=device)


def random_meaning(normal: bool):
    """The meaning of UNIFORM (normal=False) or NORMAL: operands (low or mean, high or std, seed, offset)."""

    def meaning(args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device):
        first, second, seed, offset = (a.item() for a in args)
        params = (float(first), float(second))
        shape = attrs["shape"]
        flat = random_values(normal, math.prod(shape), params, int(seed), int(offset), outs[0], device)
        return flat.reshape(shape)

    return meaning
