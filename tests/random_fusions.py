"""Random small fusions of pointwise, layout and reduction ops, valid by construction.

`fusions()` draws 1-3 tensor inputs (rank 1-4, float, half, bfloat16, int or bool; contiguous,
permuted, gapped or expanded layouts), then 2-10 steps that each add an op (or a short normalization
pattern) reading earlier values, and 1-3 outputs. Steps avoid what would make the reference itself
ill-defined, or make a last-bit difference flip a result: no integer overflow, no casts of computed
floats to int or bool, no comparisons at a threshold computed floats sit on (0), no division by values
near zero, no variance with a zero denominator. Extreme constants (infinities, NaN, the dtype's largest,
lowest and smallest values) enter only where a last-bit difference of the other operand cannot change
the result: as `where` and `pad` fills, `maximum`/`minimum` and `clamp` bounds, comparison thresholds,
and infinities added.

A `Scale` sets the sizes: `SMALL` (the default, at most 256 elements a tensor, for the interpreter),
`GPU` (extents at tile and power-of-two boundaries and primes, up to 4M elements a tensor) and `HUGE`
(one tensor of more than 2**31 elements, so that offsets cross int32).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from hypothesis import reject
from hypothesis import strategies as st
from segment_cases import Builder

from hfuse.codegen.kernel import largest_offset
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, LimitError
from hfuse.infer.common import broadcast_extents
from hfuse.ir import Fusion, Op, Value

F32, BF16, F16 = DataType.Float, DataType.BFloat16, DataType.Half
INT, INT32, BOOL = DataType.Int, DataType.Int32, DataType.Bool
FLOAT_TYPES = (F32, BF16, F16)
INPUT_TYPES = (F32, F32, BF16, F16, INT, INT32, BOOL)
LAYOUTS = ("contiguous", "contiguous", "permuted", "gapped", "expanded")
EPS = 1e-5
THRESHOLD = 0.3

FLOAT_UNARY = (Op.EXP, Op.NEG, Op.SIN, Op.COS, Op.TANH, Op.ABS, Op.SIGMOID, Op.RELU, Op.SILU, Op.ERF)
INT_UNARY = (Op.NEG, Op.ABS, Op.BITWISE_NOT)
FLOAT_BINARY = (Op.ADD, Op.SUB, Op.MUL, Op.MAXIMUM, Op.MINIMUM)
INT_BINARY = (Op.ADD, Op.SUB, Op.MAXIMUM, Op.MINIMUM, Op.BITWISE_AND, Op.BITWISE_XOR)
BOOL_BINARY = (Op.LOGICAL_AND, Op.LOGICAL_OR, Op.NE)
COMPARISONS = (Op.GT, Op.LE, Op.EQ, Op.NE)
REDUCTIONS = (Op.SUM, Op.MAX, Op.MIN)

# steps for tensors of rank 1 and more (normalization patterns twice as likely)
TENSOR_STEPS = ["reduce", "mean", "var_mean", "normalize", "normalize", "slice", "pad", "cat", "reshape"]

Draw = Callable[[st.SearchStrategy[Any]], Any]


@dataclass(frozen=True, slots=True)
class Scale:
    """How large the random fusions are: the inputs' shapes, and the most elements an op may make."""

    shapes: Callable[[Draw], tuple[int, ...]]
    max_numel: int
    input_types: tuple[DataType, ...] = INPUT_TYPES
    inputs: tuple[int, int] = (1, 3)
    steps: tuple[int, int] = (2, 10)


_SMALL_EXTENT = {1: 8, 2: 6, 3: 4, 4: 3}  # per rank, so that no tensor has many more than 100 elements


def _small_shape(draw: Draw) -> tuple[int, ...]:
    rank = draw(st.integers(1, 4))
    return tuple(draw(st.integers(1, _SMALL_EXTENT[rank])) for _ in range(rank))


# Extents where tiles, warps and blocks end (a power of two, one less, one more), where a reduction splits
# (`Options.split_below_programs`: 264 rows), and primes. 2**23 elements let a row of 16411 columns be
# one of 265 rows: one launch, kept whole (`Options.persistent_reread_cols`).
BOUNDARY_EXTENTS = (
    1, 2, 3, 5, 7, 31, 32, 33, 97, 127, 128, 129, 255, 256, 257, 263, 264, 265, 1021, 1023, 1024, 1025,
    2047, 2048, 2049, 4093, 4096, 4097, 8191, 8192, 8193, 16411, 32767, 32768, 32769, 65536, 65537, 131101,
)  # fmt: skip
GPU_NUMEL = 1 << 23


def _gpu_shape(draw: Draw) -> tuple[int, ...]:
    """Extents at boundaries, drawn so that the product stays within GPU_NUMEL."""
    shape: list[int] = []
    for _ in range(draw(st.integers(1, 4))):
        room = GPU_NUMEL // max(1, math.prod(shape))
        shape.append(draw(st.sampled_from([n for n in BOUNDARY_EXTENTS if n <= room])))
    return tuple(draw(st.permutations(shape)))


INT32_LIMIT = 2**31 - 1
# Just past int32: offsets and positions need int64 (2 bytes an element: 4 GiB a tensor).
HUGE_SHAPES = ((INT32_LIMIT + 12,), (3, 715827883), (46349, 46349), (2, 1073741831))


def _huge_shape(draw: Draw) -> tuple[int, ...]:
    return draw(st.sampled_from(HUGE_SHAPES))


SMALL = Scale(_small_shape, 256)
GPU = Scale(_gpu_shape, GPU_NUMEL)
HUGE_NUMEL = max(math.prod(s) for s in HUGE_SHAPES)
HUGE = Scale(_huge_shape, HUGE_NUMEL, input_types=(BF16, F16, BOOL), inputs=(1, 1), steps=(1, 3))


def extremes(dtype: DataType) -> tuple[float | int, ...]:
    """Values at the ends of `dtype`: infinities, NaN, the largest, lowest and smallest (normal and
    subnormal) floats, or the integer limits."""
    if dtype.is_int:
        info = torch.iinfo(dtype.torch)
        return (info.max, info.min)
    info = torch.finfo(dtype.torch)
    subnormal = float(torch.tensor(info.tiny, dtype=dtype.torch) / 2)
    return (math.inf, -math.inf, math.nan, info.max, info.min, info.tiny, -subnormal)


def _layout_strides(draw: Draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of an input: row-major, dims in a random memory order, a gap after the
    innermost dim, or one dim of stride 0 (an expanded tensor)."""
    layout = draw(st.sampled_from(LAYOUTS))
    rank = len(shape)
    order = list(range(rank))
    if layout == "permuted" and rank > 1:
        order = list(draw(st.permutations(order)))
    gap = draw(st.integers(1, 2)) if layout == "gapped" else 0
    strides, running = [0] * rank, 1
    for dim in reversed(order):
        strides[dim] = running
        running *= shape[dim] + (gap if dim == order[-1] else 0)
    if layout == "expanded":
        strides[draw(st.integers(0, rank - 1))] = 0
    return tuple(strides)


class _Grower:
    """Adds random ops to a builder, each reading values of the pool and adding its results to it."""

    def __init__(self, draw: Draw, b: Builder, pool: list[Value], max_numel: int) -> None:
        self.draw, self.b, self.pool, self.max_numel = draw, b, pool, max_numel
        self.inputs = {v.name for v in pool}
        self.scalar_input: Value | None = None

    # ---- helpers -------------------------------------------------------------------------------

    def pick(self, options):
        return self.draw(st.sampled_from(list(options)))

    def dims(self, x: Value) -> list[int]:
        return sorted(self.draw(st.sets(st.integers(0, x.rank - 1), min_size=1, max_size=x.rank)))

    def numeric(self, x: Value) -> Value:
        return self.b.cast(x, F32) if x.dtype is BOOL else x

    def floating(self, x: Value) -> Value:
        return x if x.dtype.is_float else self.b.cast(x, F32)

    def partners(self, x: Value, *others: Value) -> list[Value]:
        """Pool values that broadcast with `x` (and `others`) to a shape of x's rank within the size budget
        (or no larger than x: a `cat` may have made x larger than the budget)."""
        fitting, budget = [], max(self.max_numel, x.numel)
        for v in self.pool:
            try:
                shape = broadcast_extents(Op.ADD, [x.shape, *(o.shape for o in others), v.shape])
            except DefinitionError:
                continue
            if len(shape) == x.rank and math.prod(shape) <= budget:
                fitting.append(v)
        return fitting

    def constant(self, x: Value) -> Value:
        """A scalar of x's category: a constant, or now and then the fusion's symbolic scalar input."""
        if x.dtype.is_int:
            return self.b.const(self.pick((1, -2, 3)), INT)
        if self.draw(st.integers(0, 4)) == 0:
            if self.scalar_input is None:
                self.scalar_input = self.b.define_scalar(DataType.Double)
            return self.scalar_input
        return self.b.const(self.pick((0.5, -1.25, 2.0)))

    def extreme(self, x: Value, with_nan: bool = True, near_zero: bool = True) -> Value | None:
        """A constant at the end of x's dtype (now and then float32's for a reduced float); None for bool.
        `near_zero=False` leaves out the smallest normal and subnormal floats, which sit as close to a
        computed 0 as the threshold 0 itself."""
        if x.dtype is BOOL:
            return None
        dtype = F32 if x.dtype.is_float and self.draw(st.integers(0, 3)) == 0 else x.dtype
        values = [
            v
            for v in extremes(dtype)
            if (with_nan or not math.isnan(v)) and (near_zero or not 0 < abs(v) < 1)
        ]
        return self.b.const(self.pick(values), INT if x.dtype.is_int else DataType.Double)

    def fill(self, x: Value) -> Value:
        """A `where` or `pad` fill: an arithmetic constant, or one time in three an extreme one."""
        if self.draw(st.integers(0, 2)) == 0 and (value := self.extreme(x)) is not None:
            return value
        return self.constant(x)

    def bcast_back(self, stat: Value, x: Value, dims: list[int], keepdim: bool) -> Value:
        if keepdim:
            return stat
        return self.b.bcast(stat, x.shape, [d for d in range(x.rank) if d not in dims])

    # ---- steps ---------------------------------------------------------------------------------

    def grow(self) -> None:
        x = self.pick(self.pool)
        kinds = ["unary", "scalar", "cast", "binary", "ternary"]
        if x.dtype is not BOOL:
            kinds += ["compare", "saturate"]
        if x.rank:
            kinds += TENSOR_STEPS
        if x.rank > 1:
            kinds.append("permute")
        if 1 in x.shape:
            kinds += ["squeeze", "expand"]
        if x.rank < 4 and x.numel * 3 <= self.max_numel:
            kinds += ["broadcast_in_dim", "broadcast"]
        made = getattr(self, self.pick(kinds))(x)
        self.pool.extend(made)

    def unary(self, x: Value) -> list[Value]:
        if x.dtype is BOOL:
            return [self.b.op(Op.LOGICAL_NOT, x)]
        return [self.b.op(self.pick(INT_UNARY if x.dtype.is_int else FLOAT_UNARY), x)]

    def scalar(self, x: Value) -> list[Value]:
        x = self.numeric(x)
        ops = INT_BINARY[:4] if x.dtype.is_int else (*FLOAT_BINARY, Op.DIV)
        return [self.b.op(self.pick(ops), x, self.constant(x))]

    def cast(self, x: Value) -> list[Value]:
        if x.dtype.is_float:
            targets = [t for t in FLOAT_TYPES if t is not x.dtype]
            if x.name in self.inputs:  # exact, finite values: casts to int and bool are well defined
                targets += [INT, INT32, BOOL]
        elif x.dtype.is_int:
            targets = [*FLOAT_TYPES, INT32 if x.dtype is INT else INT, BOOL]
        else:
            targets = [F32, INT]
        return [self.b.cast(x, self.pick(targets))]

    def compare(self, x: Value) -> list[Value]:
        computed = x.name not in self.inputs  # a computed 0 may be torch's -tiny: no threshold next to 0
        extreme = self.extreme(x, near_zero=not computed) if self.draw(st.integers(0, 3)) == 0 else None
        threshold = self._threshold(x) if extreme is None else extreme
        return [self.b.op(self.pick(COMPARISONS), x, threshold)]

    def saturate(self, x: Value) -> list[Value]:
        """`maximum`/`minimum` with an extreme of x's dtype, or an infinity added to a float."""
        if x.dtype.is_float and self.draw(st.integers(0, 3)) == 0:
            return [self.b.op(self.pick((Op.ADD, Op.SUB)), x, self.b.const(self.pick((math.inf, -math.inf))))]
        return [self.b.op(self.pick((Op.MAXIMUM, Op.MINIMUM)), x, self.extreme(x))]

    def _threshold(self, x: Value) -> Value:
        """0 for ints; for floats a value that computed results (which may differ from torch's in the
        last bit, or be an exact 0 where torch's is not) do not sit on."""
        return self.b.const(0, INT) if x.dtype.is_int else self.b.const(THRESHOLD)

    def binary(self, x: Value) -> list[Value]:
        y = self.pick(self.partners(x))
        if x.dtype is BOOL and y.dtype is BOOL:
            return [self.b.op(self.pick(BOOL_BINARY), x, y)]
        x, y = self.numeric(x), self.numeric(y)
        if x.dtype.is_int and y.dtype.is_int:
            return [self.b.op(self.pick(INT_BINARY), x, y)]
        if self.draw(st.booleans()):  # a denominator kept away from zero
            denominator = self.b.op(Op.ADD, self.b.op(Op.ABS, y), self.b.const(1.0))
            return [self.b.op(Op.DIV, x, denominator)]
        return [self.b.op(self.pick(FLOAT_BINARY), x, y)]

    def ternary(self, x: Value) -> list[Value]:
        kind = self.pick(("where", "clamp", "lerp", "addcmul"))
        y = self.pick(self.partners(x))
        if kind == "where":
            conditions = [v for v in self.partners(x, y) if v.dtype is BOOL]
            if conditions:
                condition = self.pick(conditions)
            else:
                condition = self.b.op(Op.GT, self.numeric(x), self._threshold(x))
            other = y if self.draw(st.booleans()) else self.fill(x)
            return [self.b.op(Op.WHERE, condition, x, other)]
        x = self.numeric(x)
        if kind == "clamp":
            low, high = (-1, 2) if x.dtype.is_int else (-0.75, 1.5)
            kind_of = INT if x.dtype.is_int else DataType.Double
            low, high = self.b.const(low, kind_of), self.b.const(high, kind_of)
            if self.draw(st.integers(0, 2)) == 0:  # one bound at an end of the dtype
                low, high = (
                    (low, self.extreme(x, with_nan=False))
                    if self.draw(st.booleans())
                    else (self.extreme(x, with_nan=False), high)
                )
            return [self.b.op(Op.CLAMP, x, low, high)]
        x, y = self.floating(x), self.floating(y)
        if kind == "lerp":
            return [self.b.op(Op.LERP, x, y, self.b.const(0.25))]
        z = self.floating(self.pick(self.partners(x, y)))
        return [self.b.op(Op.ADDCMUL, x, y, z, self.b.const(self.pick((0.5, -2.0))))]

    def reduce(self, x: Value) -> list[Value]:
        x = self.numeric(x)
        return [self.b.op(self.pick(REDUCTIONS), x, dims=self.dims(x), keepdim=self.draw(st.booleans()))]

    def mean(self, x: Value) -> list[Value]:
        x, dims = self.floating(x), self.dims(x)
        total = self.b.sum(x, dims, keepdim=self.draw(st.booleans()))
        return [self.b.op(Op.DIV, total, self.b.const(float(math.prod(x.shape[d] for d in dims))))]

    def var_mean(self, x: Value) -> list[Value]:
        x, dims = self.floating(x), self.dims(x)
        count = math.prod(x.shape[d] for d in dims)
        correction = self.draw(st.integers(0, 1)) if count > 1 else 0
        keepdim = self.draw(st.booleans())
        attrs = {"dims": dims, "correction": correction, "keepdim": keepdim}
        return list(self.b.add(Op.VAR_MEAN, [x], attrs))

    def normalize(self, x: Value) -> list[Value]:
        """softmax, centering, standardization or RMS scaling over random dims, the statistics
        broadcast back over the reduced dims (kept as size-1 dims or re-inserted)."""
        b, x, dims = self.b, self.floating(x), self.dims(x)
        keepdim = self.draw(st.booleans())
        count = b.const(float(math.prod(x.shape[d] for d in dims)))
        pattern = self.pick(("softmax", "center", "standardize", "rms"))
        if pattern == "softmax":
            peak = b.op(Op.MAX, x, dims=dims, keepdim=keepdim)
            e = b.op(Op.EXP, b.op(Op.SUB, x, self.bcast_back(peak, x, dims, keepdim)))
            total = b.sum(e, dims, keepdim)
            return [total, b.op(Op.DIV, e, self.bcast_back(total, x, dims, keepdim))]
        if pattern == "center":
            mean = b.op(Op.DIV, b.sum(x, dims, keepdim), count)
            return [mean, b.op(Op.SUB, x, self.bcast_back(mean, x, dims, keepdim))]
        if pattern == "standardize":
            attrs = {"dims": dims, "correction": 0, "keepdim": keepdim}
            var, mean = b.add(Op.VAR_MEAN, [x], attrs)
            rstd = b.op(Op.RSQRT, b.op(Op.ADD, var, b.const(EPS)))
            centered = b.op(Op.SUB, x, self.bcast_back(mean, x, dims, keepdim))
            return [rstd, b.op(Op.MUL, centered, self.bcast_back(rstd, x, dims, keepdim))]
        mean_square = b.op(Op.DIV, b.sum(b.op(Op.MUL, x, x), dims, keepdim), count)
        rstd = b.op(Op.RSQRT, b.op(Op.ADD, mean_square, b.const(EPS)))
        return [b.op(Op.MUL, x, self.bcast_back(rstd, x, dims, keepdim))]

    def slice(self, x: Value) -> list[Value]:
        starts = [self.draw(st.integers(0, n - 1)) for n in x.shape]
        ends = [self.draw(st.integers(s + 1, n)) for s, n in zip(starts, x.shape, strict=True)]
        return [self.b.slice(x, starts, ends)]

    def pad(self, x: Value) -> list[Value]:
        x = self.numeric(x)
        pairs = []  # (dim, low, high), innermost dim first
        for dim in reversed(range(x.rank - self.draw(st.integers(1, x.rank)), x.rank)):
            low = self.draw(st.integers(-1 if x.shape[dim] > 1 else 0, 2))
            high = self.draw(st.integers(-1 if x.shape[dim] + low > 1 else 0, 2))
            pairs.append((dim, low, high))
        grown = math.prod(x.shape) * math.prod(1 + max(low, 0) + max(high, 0) for _, low, high in pairs)
        if grown > self.max_numel:  # crops only, and none that empties a dim (a max of nothing is undefined)
            pairs = [(d, min(low, 0), min(high, 0)) for d, low, high in pairs]
            pairs = [(d, low, high) if x.shape[d] + low + high > 0 else (d, 0, 0) for d, low, high in pairs]
        widths = [w for _, low, high in pairs for w in (low, high)]
        return [self.b.op(Op.PAD, x, self.fill(x), pad_widths=widths)]

    def cat(self, x: Value) -> list[Value]:
        dim = self.draw(st.integers(0, x.rank - 1))
        fits = [
            v
            for v in self.pool
            if v.rank == x.rank and all(v.shape[d] == x.shape[d] for d in range(x.rank) if d != dim)
        ]
        parts = [x, *self.draw(st.lists(st.sampled_from(fits), min_size=1, max_size=2))]
        if sum(p.numel for p in parts) > self.max_numel:
            parts = [x, x]
        if {p.dtype is BOOL for p in parts} == {True, False}:
            parts = [self.numeric(p) for p in parts]
        return [self.b.op(Op.CAT, *parts, dim=dim)]

    def reshape(self, x: Value) -> list[Value]:
        shapes = [(x.numel,)]
        for d in range(x.rank - 1):  # merge two neighbouring dims
            shapes.append((*x.shape[:d], x.shape[d] * x.shape[d + 1], *x.shape[d + 2 :]))
        if x.rank < 4:  # split a dim in two
            for d, factor in itertools.product(range(x.rank), (2, 3)):
                if x.shape[d] % factor == 0 and x.shape[d] > factor:
                    shapes.append((*x.shape[:d], factor, x.shape[d] // factor, *x.shape[d + 1 :]))
        return [self.b.op(Op.RESHAPE, x, new_shape=list(self.pick(shapes)))]

    def permute(self, x: Value) -> list[Value]:
        return [self.b.op(Op.PERMUTE, x, dims=list(self.draw(st.permutations(range(x.rank)))))]

    def squeeze(self, x: Value) -> list[Value]:
        ones = [d for d, n in enumerate(x.shape) if n == 1]
        return [self.b.op(Op.SQUEEZE, x, dims=sorted(self.draw(st.sets(st.sampled_from(ones), min_size=1))))]

    def expand(self, x: Value) -> list[Value]:
        shape = [self.draw(st.integers(2, 3)) if n == 1 else n for n in x.shape]
        if math.prod(shape) > self.max_numel:
            shape = list(x.shape)
        return [self.b.op(Op.EXPAND, x, shape=shape)]

    def broadcast_in_dim(self, x: Value) -> list[Value]:
        where = self.draw(st.integers(0, x.rank))
        shape = [*x.shape[:where], self.draw(st.integers(1, 3)), *x.shape[where:]]
        kept = [d for d in range(x.rank + 1) if d != where]
        return [self.b.bcast(x, shape, kept)]

    def broadcast(self, x: Value) -> list[Value]:
        where = self.draw(st.integers(0, x.rank))
        flags = [d == where for d in range(x.rank + 1)]
        return [self.b.op(Op.BROADCAST, x, is_broadcast_dim=flags)]


@st.composite
def fusions(draw: Draw, scale: Scale = SMALL) -> Fusion:
    b = Builder()
    pool = []
    for _ in range(draw(st.integers(*scale.inputs))):
        shape = scale.shapes(draw)
        dtype = draw(st.sampled_from(scale.input_types))
        pool.append(b.define_tensor(shape, dtype, _layout_strides(draw, shape)))
    grower = _Grower(draw, b, pool, scale.max_numel)
    inputs = len(pool)
    low, high = scale.steps
    for _ in range(draw(st.sampled_from(range(low, high + 1)))):
        try:
            grower.grow()
        except LimitError:  # a HUGE fusion's results reach the limit on what one fusion computes
            if len(pool) == inputs:
                reject()
            break
    made = pool[inputs:]
    read = {name for e in b.build().exprs for name in e.inputs}
    unread = [v for v in made[:-1] if v.name not in read]  # outputs there keep more exprs alive
    others = [draw(st.sampled_from(unread or made)) for _ in range(draw(st.sampled_from((0, 1, 2))))]
    for value in dict.fromkeys([made[-1], *others]):
        b.add_output(value)
    return b.build()


def random_inputs(fusion: Fusion, seed: int, device: str = "cpu") -> list[Any]:
    """Fresh inputs laid out with each input's strides, drawn on `device`: normal floats, small ints,
    random bools. A symbolic scalar gets a number drawn from the same seed."""
    generator = torch.Generator(device=device).manual_seed(seed)
    draw = {"generator": generator, "device": device}
    inputs: list[Any] = []
    for name in fusion.inputs:
        value = fusion.value(name)
        if value.is_scalar:
            inputs.append(round(float(torch.rand((), **draw)) * 4 - 2, 3))
            continue
        size = largest_offset(value) + 1
        if value.dtype.is_float:
            storage = torch.randn(size, **draw).to(value.dtype.torch)
        elif value.dtype is BOOL:
            storage = torch.rand(size, **draw) > 0.5
        else:
            storage = torch.randint(-4, 5, (size,), **draw).to(value.dtype.torch)
        inputs.append(storage.as_strided(value.shape, value.strides))
    return inputs
