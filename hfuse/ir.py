"""The fusion IR: an immutable DAG of values (tensors and scalars) and exprs.

Shapes are concrete: a Fusion is built once the extents of its inputs are known (from the
definition's static sizes, the script's `inputs` list, or the tensors given to `execute`).

Canonical operands and attributes of each op (the frontend turns every old spelling into these;
dims are normalized to be non-negative; shapes are tuples of ints):

| family      | inputs                         | attrs                                               |
| ----------- | ------------------------------ | --------------------------------------------------- |
| UNARY       | x                              | -                                                   |
| BINARY      | a, b                           | -                                                   |
| TERNARY     | WHERE c,a,b; LERP s,e,w;       | -                                                   |
|             | CLAMP x,lo,hi; THRESHOLD x,t,v;|                                                     |
|             | ADDCMUL x,t1,t2,value          |                                                     |
| CAST        | x                              | dtype                                               |
| REDUCTION   | x                              | dims (sorted tuple), keepdim, dtype                 |
| VAR         | x                              | dims, correction, keepdim                           |
| VAR_MEAN    | x -> (var, mean)               | dims, correction, keepdim                           |
| WELFORD     | x -> (avg, var_sum, n)         | dims                                                |
| SCAN        | CUMSUM x, CUMPROD x, CUMMAX x, | dim                                                 |
|             | CUMMIN x                       |                                                     |
| SORT        | ARGSORT x                      | dim, descending, stable                             |
|             | TOPK x -> (values, indices)    | k, dim, largest, sorted                             |
| VIEW        | BROADCAST_IN_DIM x             | shape, broadcast_dims                               |
|             | BROADCAST x                    | is_broadcast_dim (tuple of bool)                    |
|             | EXPAND x                       | shape (no -1 left)                                  |
|             | RESHAPE x                      | new_shape (no -1 left)                              |
|             | PERMUTE x                      | dims                                                |
|             | SQUEEZE x                      | dims (sorted)                                       |
|             | STRIDE_ORDER x                 | stride_order                                        |
| RESIZE      | SLICE x                        | starts, ends, strides (clamped, non-negative)       |
|             | PAD x, value                   | pad_widths (flat pairs, innermost dim first)        |
|             | CAT x0, x1, ...                | dim                                                 |
| CREATION    | FULL fill_value                | shape, dtype                                        |
|             | IOTA start, step               | length, dtype                                       |
|             | UNIFORM low, high, seed, offset| shape, dtype                                        |
|             | NORMAL mean, std, seed, offset | shape, dtype                                        |
| MASK        | TRIU x                         | diagonal                                            |
| INDEXING    | INDEX_SELECT x, index          | dim                                                 |
|             | SELECT x, index (scalar)       | dim                                                 |
|             | GATHER x, index                | dim                                                 |
|             | TAKE_ALONG_AXIS x, index       | dim                                                 |
|             | SCATTER x, index, src          | dim                                                 |
|             | INDEX_PUT_ACCUMULATE acc,i,v   | -                                                   |
|             | EMBEDDING_FWD input, weight    | padding_idx, max_norm, norm_type,                   |
|             |                                | scale_grad_by_freq, sparse                          |
| MATMUL      | MATMUL a, b; LINEAR a, b[, bias]| -                                                  |
| ATTENTION   | SDPFA_FWD q, k, v, [bias],     | has_bias, has_mask, has_scale: which of the         |
|             |   [mask], dropout_p, is_causal,|   optional operands the expr has                    |
|             |   [scale] -> (out, logsumexp,  |                                                     |
|             |   philox_seed, philox_offset)  |                                                     |
|             | SDPFA_BWD grad_out, q, k, v,   | has_scale                                           |
|             |   out, logsumexp, dropout_p,   |                                                     |
|             |   is_causal, philox_seed,      |                                                     |
|             |   philox_offset, [scale]       |                                                     |
|             |   -> (grad_q, grad_k, grad_v)  |                                                     |

Scalar operands (constants and symbolic scalar inputs) are values of kind SCALAR.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hfuse.dtypes import DataType


class Family(enum.Enum):
    UNARY = "unary"
    BINARY = "binary"
    TERNARY = "ternary"
    CAST = "cast"
    REDUCTION = "reduction"
    VAR = "var"
    SCAN = "scan"
    SORT = "sort"
    VIEW = "view"
    RESIZE = "resize"
    CREATION = "creation"
    MASK = "mask"
    INDEXING = "indexing"
    MATMUL = "matmul"
    ATTENTION = "attention"


class Op(enum.Enum):
    """Every op the IR knows. The value is (frontend name, family)."""

    # unary
    ABS = ("abs", Family.UNARY)
    ACOS = ("acos", Family.UNARY)
    ACOSH = ("acosh", Family.UNARY)
    ASIN = ("asin", Family.UNARY)
    ASINH = ("asinh", Family.UNARY)
    ATAN = ("atan", Family.UNARY)
    ATANH = ("atanh", Family.UNARY)
    CEIL = ("ceil", Family.UNARY)
    COS = ("cos", Family.UNARY)
    COSH = ("cosh", Family.UNARY)
    EXP = ("exp", Family.UNARY)
    EXP2 = ("exp2", Family.UNARY)
    EXPM1 = ("expm1", Family.UNARY)
    ERF = ("erf", Family.UNARY)
    ERFC = ("erfc", Family.UNARY)
    ERFINV = ("erfinv", Family.UNARY)
    ERFCINV = ("erfcinv", Family.UNARY)
    FLOOR = ("floor", Family.UNARY)
    FRAC = ("frac", Family.UNARY)
    LGAMMA = ("lgamma", Family.UNARY)
    LOG = ("log", Family.UNARY)
    LOG10 = ("log10", Family.UNARY)
    LOG1P = ("log1p", Family.UNARY)
    LOG2 = ("log2", Family.UNARY)
    NEG = ("neg", Family.UNARY)
    LOGICAL_NOT = ("logical_not", Family.UNARY)
    BITWISE_NOT = ("bitwise_not", Family.UNARY)
    RELU = ("relu", Family.UNARY)
    RECIPROCAL = ("reciprocal", Family.UNARY)
    ROUND = ("round", Family.UNARY)
    RSQRT = ("rsqrt", Family.UNARY)
    SET = ("set", Family.UNARY)
    SEGMENT_SET = ("segment_set", Family.UNARY)
    SIGN = ("sign", Family.UNARY)
    SIGMOID = ("sigmoid", Family.UNARY)
    SIGNBIT = ("signbit", Family.UNARY)
    SILU = ("silu", Family.UNARY)
    SIN = ("sin", Family.UNARY)
    SINH = ("sinh", Family.UNARY)
    SQRT = ("sqrt", Family.UNARY)
    TAN = ("tan", Family.UNARY)
    TANH = ("tanh", Family.UNARY)
    TRUNC = ("trunc", Family.UNARY)
    ISFINITE = ("isfinite", Family.UNARY)
    ISINF = ("isinf", Family.UNARY)
    ISNAN = ("isnan", Family.UNARY)
    ISNEGINF = ("isneginf", Family.UNARY)
    ISPOSINF = ("isposinf", Family.UNARY)
    ISREAL = ("isreal", Family.UNARY)
    REAL = ("real", Family.UNARY)
    IMAG = ("imag", Family.UNARY)
    # binary
    ADD = ("add", Family.BINARY)
    ATAN2 = ("atan2", Family.BINARY)
    DIV = ("div", Family.BINARY)
    TRUEDIV = ("truediv", Family.BINARY)
    FMOD = ("fmod", Family.BINARY)
    MUL = ("mul", Family.BINARY)
    NEXTAFTER = ("nextafter", Family.BINARY)
    POW = ("pow", Family.BINARY)
    REMAINDER = ("remainder", Family.BINARY)
    SUB = ("sub", Family.BINARY)
    MINIMUM = ("minimum", Family.BINARY)
    MAXIMUM = ("maximum", Family.BINARY)
    MOD = ("mod", Family.BINARY)
    EQ = ("eq", Family.BINARY)
    GE = ("ge", Family.BINARY)
    GT = ("gt", Family.BINARY)
    LE = ("le", Family.BINARY)
    LT = ("lt", Family.BINARY)
    NE = ("ne", Family.BINARY)
    LOGICAL_AND = ("logical_and", Family.BINARY)
    LOGICAL_OR = ("logical_or", Family.BINARY)
    BITWISE_AND = ("bitwise_and", Family.BINARY)
    BITWISE_OR = ("bitwise_or", Family.BINARY)
    BITWISE_XOR = ("bitwise_xor", Family.BINARY)
    BITWISE_LEFT_SHIFT = ("bitwise_left_shift", Family.BINARY)
    BITWISE_RIGHT_SHIFT = ("bitwise_right_shift", Family.BINARY)
    LOGICAL_RIGHT_SHIFT = ("logical_right_shift", Family.BINARY)
    GCD = ("gcd", Family.BINARY)
    # ternary
    WHERE = ("where", Family.TERNARY)
    LERP = ("lerp", Family.TERNARY)
    CLAMP = ("clamp", Family.TERNARY)
    THRESHOLD = ("threshold", Family.TERNARY)
    ADDCMUL = ("addcmul", Family.TERNARY)
    # cast
    CAST = ("cast", Family.CAST)
    # reductions
    SUM = ("sum", Family.REDUCTION)
    MAX = ("max", Family.REDUCTION)
    MIN = ("min", Family.REDUCTION)
    PROD = ("prod", Family.REDUCTION)
    VAR = ("var", Family.VAR)
    VAR_MEAN = ("var_mean", Family.VAR)
    WELFORD = ("welford", Family.VAR)
    CUMSUM = ("cumsum", Family.SCAN)
    CUMPROD = ("cumprod", Family.SCAN)
    CUMMAX = ("cummax", Family.SCAN)
    CUMMIN = ("cummin", Family.SCAN)
    ARGSORT = ("argsort", Family.SORT)
    TOPK = ("topk", Family.SORT)
    # views
    BROADCAST_IN_DIM = ("broadcast_in_dim", Family.VIEW)
    BROADCAST = ("broadcast", Family.VIEW)
    EXPAND = ("expand", Family.VIEW)
    RESHAPE = ("reshape", Family.VIEW)
    PERMUTE = ("permute", Family.VIEW)
    SQUEEZE = ("squeeze", Family.VIEW)
    STRIDE_ORDER = ("stride_order", Family.VIEW)
    # resize
    SLICE = ("slice", Family.RESIZE)
    PAD = ("pad", Family.RESIZE)
    CAT = ("cat", Family.RESIZE)
    # creation
    FULL = ("full", Family.CREATION)
    IOTA = ("iota", Family.CREATION)
    UNIFORM = ("uniform", Family.CREATION)  # random: Philox streams, see hfuse/ops/philox.py
    NORMAL = ("normal", Family.CREATION)
    TRIU = ("triu", Family.MASK)
    # indexing
    INDEX_SELECT = ("index_select", Family.INDEXING)
    SELECT = ("select", Family.INDEXING)
    GATHER = ("gather", Family.INDEXING)
    TAKE_ALONG_AXIS = ("take_along_axis", Family.INDEXING)
    SCATTER = ("scatter", Family.INDEXING)
    INDEX_PUT_ACCUMULATE = ("index_put_accumulate", Family.INDEXING)
    EMBEDDING_FWD = ("embedding_fwd", Family.INDEXING)
    # matmul-class, run by torch
    MATMUL = ("matmul", Family.MATMUL)
    LINEAR = ("linear", Family.MATMUL)
    # scaled dot-product attention (nvFuser's flash-attention ops), run by torch
    SDPFA_FWD = ("sdpfa_fwd", Family.ATTENTION)
    SDPFA_BWD = ("sdpfa_bwd", Family.ATTENTION)

    @property
    def frontend_name(self) -> str:
        return self.value[0]

    @property
    def family(self) -> Family:
        return self.value[1]

    def __repr__(self) -> str:
        return f"Op.{self.name}"

    @staticmethod
    def by_name(name: str) -> Op | None:
        return _OPS_BY_NAME.get(name)


_OPS_BY_NAME = {op.frontend_name: op for op in Op}


class Kind(enum.Enum):
    TENSOR = "tensor"
    SCALAR = "scalar"


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides, running = [], 1
    for extent in reversed(shape):
        strides.append(running)
        running *= max(extent, 1)
    return tuple(reversed(strides))


@dataclass(frozen=True, slots=True)
class Value:
    """A tensor or a scalar. Tensors carry their shape and element strides.

    `const` is the value of a constant scalar; a scalar with `const is None` that is a fusion
    input is symbolic (its value comes with the inputs at run time).
    """

    name: str
    kind: Kind
    dtype: DataType
    shape: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    const: bool | int | float | complex | None = None

    @property
    def is_tensor(self) -> bool:
        return self.kind is Kind.TENSOR

    @property
    def is_scalar(self) -> bool:
        return self.kind is Kind.SCALAR

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * self.dtype.itemsize

    @property
    def is_contiguous(self) -> bool:
        expected = contiguous_strides(self.shape)
        return all(s == e for s, e, n in zip(self.strides, expected, self.shape, strict=True) if n != 1)

    def describe(self) -> str:
        if self.is_scalar:
            return f"{self.name}: {self.dtype.name} scalar" + (
                f" = {self.const!r}" if self.const is not None else ""
            )
        return f"{self.name}: {self.dtype.name}{list(self.shape)}"


def freeze_attrs(attrs: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Attributes as a sorted tuple of pairs, with lists turned into tuples, so exprs hash."""

    def freeze(v: Any) -> Any:
        if isinstance(v, list | tuple):
            return tuple(freeze(x) for x in v)
        return v

    return tuple(sorted((k, freeze(v)) for k, v in attrs.items()))


@dataclass(frozen=True, slots=True)
class Expr:
    op: Op
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    loc: tuple[int, int] | None = dataclasses.field(default=None, compare=False)

    def attr(self, key: str, default: Any = None) -> Any:
        for k, v in self.attrs:
            if k == key:
                return v
        return default

    @property
    def attr_dict(self) -> dict[str, Any]:
        return dict(self.attrs)

    def __str__(self) -> str:
        args = ", ".join(self.inputs)
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.attrs)
        sep = ", " if args and attrs else ""
        return f"{', '.join(self.outputs)} = {self.op.frontend_name}({args}{sep}{attrs})"


@dataclass(frozen=True, slots=True)
class Output:
    """A fusion output: the value, and what the definition asked of it."""

    name: str
    alias_input: str | None = None
    stride_order: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Fusion:
    values: tuple[Value, ...]
    inputs: tuple[str, ...]
    exprs: tuple[Expr, ...]
    outputs: tuple[Output, ...]

    def value(self, name: str) -> Value:
        for v in self.values:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def value_map(self) -> dict[str, Value]:
        return {v.name: v for v in self.values}

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.outputs)

    def producer(self, name: str) -> Expr | None:
        for e in self.exprs:
            if name in e.outputs:
                return e
        return None

    def tensors(self) -> Iterator[Value]:
        return (v for v in self.values if v.is_tensor)
