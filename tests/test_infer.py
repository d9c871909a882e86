"""Shape and dtype inference: output specs, attribute normalization, and the errors for bad definitions."""

import pytest
import torch

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, LimitError
from hfuse.ir import Kind, Op, Value
from hfuse.ops import OPS, infer

F32, F16, BF16, F64, I64, I32, B = (
    DataType.Float,
    DataType.Half,
    DataType.BFloat16,
    DataType.Double,
    DataType.Int,
    DataType.Int32,
    DataType.Bool,
)


def tensor(shape, dtype=F32) -> Value:
    return Value("t", Kind.TENSOR, dtype, tuple(shape))


def scalar(dtype=F64, const=None) -> Value:
    return Value("s", Kind.SCALAR, dtype, const=const)


# query [2, 3, 5, 4], key [2, 3, 7, 4], value [2, 3, 7, 6]: L=5, S=7, E=4, Ev=6
ATTENTION_QKV = [tensor((2, 3, 5, 4), BF16), tensor((2, 3, 7, 4), BF16), tensor((2, 3, 7, 6), BF16)]
ATTENTION_SCALARS = [scalar(F64, 0.0), scalar(B, False)]


def out_specs(op, operands, attrs=None):
    return [(o.dtype, o.shape) for o in infer(op, operands, attrs or {}).outputs]


ELEMENTWISE = [
    ("exp-float", Op.EXP, [tensor((2, 3))], (F32, (2, 3))),
    ("exp-int-to-float", Op.EXP, [tensor((2,), I64)], (F32, (2,))),
    ("sqrt-half", Op.SQRT, [tensor((2,), F16)], (F16, (2,))),
    ("reciprocal-int", Op.RECIPROCAL, [tensor((2,), I32)], (F32, (2,))),
    ("abs-keeps-int", Op.ABS, [tensor((2,), I32)], (I32, (2,))),
    ("neg-keeps-bf16", Op.NEG, [tensor((2,), BF16)], (BF16, (2,))),
    ("relu-keeps-int", Op.RELU, [tensor((2,), I64)], (I64, (2,))),
    ("isnan-bool", Op.ISNAN, [tensor((2,), F16)], (B, (2,))),
    ("abs-complex-real", Op.ABS, [tensor((2,), DataType.ComplexFloat)], (F32, (2,))),
    ("real-complex", Op.REAL, [tensor((2,), DataType.ComplexDouble)], (F64, (2,))),
    ("add-broadcast-rank", Op.ADD, [tensor((4, 1, 3)), tensor((5, 1))], (F32, (4, 5, 3))),
    ("add-broadcast-zero", Op.ADD, [tensor((0, 3)), tensor((1, 3))], (F32, (0, 3))),
    ("add-half-float", Op.ADD, [tensor((2,), F16), tensor((2,), F32)], (F32, (2,))),
    ("add-half-bf16", Op.ADD, [tensor((2,), F16), tensor((2,), BF16)], (F32, (2,))),
    ("mul-float-double-scalar", Op.MUL, [tensor((2,)), scalar(F64)], (F32, (2,))),
    ("mul-half-double-scalar", Op.MUL, [tensor((2,), F16), scalar(F64)], (F16, (2,))),
    ("add-int-double-scalar", Op.ADD, [tensor((2,), I64), scalar(F64)], (F32, (2,))),
    ("add-int32-int-scalar", Op.ADD, [tensor((2,), I32), scalar(I64)], (I32, (2,))),
    ("add-bool-int-scalar", Op.ADD, [tensor((2,), B), scalar(I64)], (I64, (2,))),
    ("add-int32-double-scalar", Op.ADD, [tensor((2,), I32), scalar(F64)], (F32, (2,))),
    (
        "add-float-complex-scalar",
        Op.ADD,
        [tensor((2,)), scalar(DataType.ComplexDouble)],
        (DataType.ComplexFloat, (2,)),
    ),
    ("div-int-truncates", Op.DIV, [tensor((2,), I64), tensor((2,), I64)], (I64, (2,))),
    ("truediv-int-float", Op.TRUEDIV, [tensor((2,), I64), tensor((2,), I32)], (F32, (2,))),
    ("pow-int-double-scalar", Op.POW, [tensor((2,), I64), scalar(F64)], (F32, (2,))),
    ("lt-bool", Op.LT, [tensor((2,), F16), scalar(F64)], (B, (2,))),
    ("logical-and-bool", Op.LOGICAL_AND, [tensor((2,), I64), tensor((2,), F32)], (B, (2,))),
    ("bitwise-and-int32", Op.BITWISE_AND, [tensor((2,), I32), tensor((2,), I32)], (I32, (2,))),
    ("where-promotes-branches", Op.WHERE, [tensor((3, 1), B), tensor((4,), F16), scalar(F64)], (F16, (3, 4))),
    ("where-number-branches", Op.WHERE, [tensor((2,), B), scalar(F64), scalar(I64)], (F32, (2,))),
    ("where-int-number-branches", Op.WHERE, [tensor((2,), B), scalar(I64), scalar(I64)], (I64, (2,))),
    ("where-int-branches", Op.WHERE, [tensor((2,), B), tensor((2,), I32), tensor((2,), I64)], (I64, (2,))),
    ("lerp-float", Op.LERP, [tensor((2,), F16), tensor((2,), F16), scalar(F64)], (F16, (2,))),
    ("clamp-keeps", Op.CLAMP, [tensor((2,), BF16), scalar(F64), scalar(F64)], (BF16, (2,))),
    ("threshold-keeps-int", Op.THRESHOLD, [tensor((2,), I32), scalar(F64), scalar(I64)], (I32, (2,))),
    ("addcmul", Op.ADDCMUL, [tensor((2, 1)), tensor((3,)), tensor((3,)), scalar(F64)], (F32, (2, 3))),
]


@pytest.mark.parametrize(
    "op, operands, expected", [c[1:] for c in ELEMENTWISE], ids=[c[0] for c in ELEMENTWISE]
)
def test_elementwise_dtype_and_shape(op, operands, expected):
    assert out_specs(op, operands) == [expected]


PROMOTION_AGAINST_TORCH = [
    (a, b)
    for a in (F32, F16, BF16, F64, I64, I32, B)
    for b in (F32, F16, BF16, F64, I64, I32, B, "int", "float", "bool")
]


@pytest.mark.parametrize(
    "a, b",
    PROMOTION_AGAINST_TORCH,
    ids=[f"{a.name}-{getattr(b, 'name', b)}" for a, b in PROMOTION_AGAINST_TORCH],
)
def test_promotion_matches_torch(a, b):
    python_scalars = {"int": (2, scalar(I64)), "float": (2.5, scalar(F64)), "bool": (True, scalar(B))}
    left = torch.ones(2, dtype=a.torch)
    if b in python_scalars:
        number, operand = python_scalars[b]
        expected = torch.mul(left, number).dtype
    else:
        operand = tensor((2,), b)
        expected = torch.mul(left, torch.ones(2, dtype=b.torch)).dtype
    ((dtype, _),) = out_specs(Op.MUL, [tensor((2,), a), operand])
    assert dtype.torch == expected


@pytest.mark.parametrize(
    "op, operands, expected_dtype, expected_const",
    [
        (Op.ADD, [scalar(I64, 2), scalar(F64, 0.5)], F64, 2.5),
        (Op.MUL, [scalar(I64, 3), scalar(I64, 4)], I64, 12),
        (Op.DIV, [scalar(I64, -7), scalar(I64, 2)], I64, -3),
        (Op.TRUEDIV, [scalar(I64, 7), scalar(I64, 2)], F64, 3.5),
        (Op.LT, [scalar(F64, 1.0), scalar(I64, 2)], B, True),
        (Op.NEG, [scalar(F64, 1.5)], F64, -1.5),
        (Op.WHERE, [scalar(B, False), scalar(I64, 1), scalar(F64, 2.0)], F64, 2.0),
        (Op.CAST, [scalar(F64, 2.7)], I64, 2),
    ],
    ids=["add", "mul", "div-trunc", "truediv", "lt", "neg", "where", "cast"],
)
def test_constant_scalars_fold(op, operands, expected_dtype, expected_const):
    attrs = {"dtype": DataType.Int} if op is Op.CAST else {}
    (out,) = infer(op, operands, attrs).outputs
    assert (out.kind, out.dtype, out.const) == (Kind.SCALAR, expected_dtype, expected_const)
    assert type(out.const) is type(expected_const)


def test_symbolic_scalars_do_not_fold():
    (out,) = infer(Op.ADD, [scalar(F64), scalar(I64, 1)], {}).outputs
    assert (out.kind, out.dtype, out.const) == (Kind.SCALAR, F64, None)


SHAPES = [
    ("sum-all", Op.SUM, tensor((2, 3)), {}, {"dims": (0, 1)}, [(F32, ())]),
    ("sum-neg-dims-sorted", Op.SUM, tensor((2, 3, 4)), {"dims": [-1, 0]}, {"dims": (0, 2)}, [(F32, (3,))]),
    (
        "sum-keepdim",
        Op.SUM,
        tensor((2, 3)),
        {"dims": [1], "keepdim": True},
        {"keepdim": True},
        [(F32, (2, 1))],
    ),
    ("sum-bool-int", Op.SUM, tensor((2, 3), B), {"dims": [1]}, {"dtype": DataType.Null}, [(I64, (2,))]),
    ("sum-int32-int", Op.SUM, tensor((2, 3), I32), {"dims": [1]}, {}, [(I64, (2,))]),
    (
        "sum-half-dtype",
        Op.SUM,
        tensor((2, 3), F16),
        {"dims": [1], "dtype": F32},
        {"dtype": F32},
        [(F32, (2,))],
    ),
    ("max-keeps", Op.MAX, tensor((2, 3), I32), {"dims": [0]}, {}, [(I32, (3,))]),
    ("var", Op.VAR, tensor((2, 3), F16), {"dims": [1], "correction": 0}, {"correction": 0}, [(F32, (2,))]),
    ("var-mean", Op.VAR_MEAN, tensor((2, 3)), {"dims": [-1]}, {"correction": 1}, [(F32, (2,)), (F32, (2,))]),
    (
        "welford",
        Op.WELFORD,
        tensor((2, 3)),
        {"dims": [1]},
        {"dims": (1,)},
        [(F32, (2,)), (F32, (2,)), (I64, (2,))],
    ),
    ("cumsum-int", Op.CUMSUM, tensor((2, 3), I32), {"dim": -1}, {"dim": 1}, [(I64, (2, 3))]),
    ("cummax-int", Op.CUMMAX, tensor((2, 3), I32), {"dim": -1}, {"dim": 1}, [(I32, (2, 3))]),
    ("argsort", Op.ARGSORT, tensor((2, 3)), {"dim": 0}, {"descending": False}, [(I64, (2, 3))]),
    (
        "topk",
        Op.TOPK,
        tensor((2, 5)),
        {"k": 2, "dim": -1},
        {"dim": 1, "largest": True},
        [(F32, (2, 2)), (I64, (2, 2))],
    ),
    ("bid", Op.BROADCAST_IN_DIM, tensor((3,)), {"shape": [2, 3], "broadcast_dims": [1]}, {}, [(F32, (2, 3))]),
    (
        "bid-expands",
        Op.BROADCAST_IN_DIM,
        tensor((1, 3)),
        {"shape": [4, 3], "broadcast_dims": [0, 1]},
        {},
        [(F32, (4, 3))],
    ),
    (
        "bid-minus-one",
        Op.BROADCAST_IN_DIM,
        tensor((3,)),
        {"shape": [2, -1], "broadcast_dims": [1]},
        {"shape": (2, 3)},
        [(F32, (2, 3))],
    ),
    (
        "broadcast",
        Op.BROADCAST,
        tensor((3,)),
        {"is_broadcast_dim": [True, False, True]},
        {},
        [(F32, (1, 3, 1))],
    ),
    ("expand", Op.EXPAND, tensor((1, 3)), {"shape": [4, -1]}, {"shape": (4, 3)}, [(F32, (4, 3))]),
    (
        "reshape-infer",
        Op.RESHAPE,
        tensor((2, 3, 4)),
        {"new_shape": [-1, 4]},
        {"new_shape": (6, 4)},
        [(F32, (6, 4))],
    ),
    (
        "permute-neg",
        Op.PERMUTE,
        tensor((2, 3, 4)),
        {"dims": [-1, 0, 1]},
        {"dims": (2, 0, 1)},
        [(F32, (4, 2, 3))],
    ),
    ("squeeze", Op.SQUEEZE, tensor((1, 3, 1)), {"dims": [-1, 0]}, {"dims": (0, 2)}, [(F32, (3,))]),
    ("stride-order", Op.STRIDE_ORDER, tensor((2, 3)), {"stride_order": [0, 1]}, {}, [(F32, (2, 3))]),
    (
        "slice-python",
        Op.SLICE,
        tensor((10, 4)),
        {"starts": [-3, 1], "ends": [100, -1]},
        {"starts": (7, 1), "ends": (10, 3), "strides": (1, 1)},
        [(F32, (3, 2))],
    ),
    (
        "slice-empty",
        Op.SLICE,
        tensor((10,)),
        {"starts": [5], "ends": [2], "strides": [1]},
        {"starts": (5,), "ends": (5,)},
        [(F32, (0,))],
    ),
    ("pad", Op.PAD, tensor((2, 3)), {"pad_widths": [1, 2]}, {"pad_widths": (1, 2)}, [(F32, (2, 6))]),
    ("pad-two-dims", Op.PAD, tensor((2, 3)), {"pad_widths": [0, 0, 1, 1]}, {}, [(F32, (4, 3))]),
    ("pad-crop", Op.PAD, tensor((4, 66, 66)), {"pad_widths": [-1, -1, -1, -1]}, {}, [(F32, (4, 64, 64))]),
    ("triu", Op.TRIU, tensor((3, 3)), {}, {"diagonal": 0}, [(F32, (3, 3))]),
    ("index-select", Op.INDEX_SELECT, tensor((5, 3)), {"dim": 0}, {}, [(F32, (7, 3))]),
]


@pytest.mark.parametrize(
    "op, x, attrs, normalized, expected", [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES]
)
def test_shape_rules(op, x, attrs, normalized, expected):
    operands = [x, tensor((7,), I64)] if op is Op.INDEX_SELECT else [x]
    inferred = infer(op, operands, attrs)
    assert [(o.dtype, o.shape) for o in inferred.outputs] == expected
    assert {k: inferred.attrs[k] for k in normalized} == normalized


MULTI_OPERAND = [
    ("cat", Op.CAT, [tensor((2, 3)), tensor((4, 3), F16)], {"dim": -2}, {"dim": 0}, [(F32, (6, 3))]),
    ("full", Op.FULL, [scalar(F64, 1.5)], {"shape": [2, 3], "dtype": F16}, {}, [(F16, (2, 3))]),
    ("iota", Op.IOTA, [scalar(I64, 0), scalar(I64, 2)], {"length": 5}, {"dtype": I64}, [(I64, (5,))]),
    (
        "iota-float",
        Op.IOTA,
        [scalar(F64, 0.0), scalar(F64, 0.5)],
        {"length": 3, "dtype": F32},
        {},
        [(F32, (3,))],
    ),
    ("select", Op.SELECT, [tensor((4, 5)), scalar(I64, 2)], {"dim": -1}, {"dim": 1}, [(F32, (4,))]),
    ("gather", Op.GATHER, [tensor((4, 5)), tensor((2, 5), I64)], {"dim": 0}, {}, [(F32, (2, 5))]),
    (
        "take-along",
        Op.TAKE_ALONG_AXIS,
        [tensor((4, 5)), tensor((4, 2), I64)],
        {"dim": 1},
        {},
        [(F32, (4, 2))],
    ),
    (
        "scatter",
        Op.SCATTER,
        [tensor((4, 5)), tensor((2, 5), I64), tensor((2, 5))],
        {"dim": 0},
        {},
        [(F32, (4, 5))],
    ),
    (
        "index-put",
        Op.INDEX_PUT_ACCUMULATE,
        [tensor((6, 3)), tensor((4,), I64), tensor((4, 3))],
        {},
        {},
        [(F32, (6, 3))],
    ),
    (
        "embedding",
        Op.EMBEDDING_FWD,
        [tensor((2, 3), I64), tensor((10, 4), F16)],
        {},
        {"norm_type": 2.0},
        [(F16, (2, 3, 4))],
    ),
    ("matmul-2d", Op.MATMUL, [tensor((2, 3)), tensor((3, 4))], {}, {}, [(F32, (2, 4))]),
    ("matmul-batch", Op.MATMUL, [tensor((5, 1, 2, 3)), tensor((4, 3, 6))], {}, {}, [(F32, (5, 4, 2, 6))]),
    ("matmul-vec-mat", Op.MATMUL, [tensor((3,)), tensor((2, 3, 4))], {}, {}, [(F32, (2, 4))]),
    ("matmul-mat-vec", Op.MATMUL, [tensor((2, 3)), tensor((3,))], {}, {}, [(F32, (2,))]),
    ("matmul-dot", Op.MATMUL, [tensor((3,)), tensor((3,))], {}, {}, [(F32, ())]),
    (
        "linear",
        Op.LINEAR,
        [tensor((2, 5, 3), BF16), tensor((4, 3), BF16), tensor((4,), BF16)],
        {},
        {},
        [(BF16, (2, 5, 4))],
    ),
    ("linear-vec-weight", Op.LINEAR, [tensor((2, 3)), tensor((3,))], {}, {}, [(F32, (2,))]),
    (
        "sdpfa-fwd",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV, scalar(F64, 0.0), scalar(B, True)],
        {},
        {"has_bias": False, "has_mask": False, "has_scale": False},
        [(BF16, (2, 3, 5, 6)), (F32, (2, 3, 5)), (I64, ()), (I64, ())],
    ),
    (
        "sdpfa-fwd-bias-mask-scale",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV, tensor((1, 3, 5, 7), BF16), tensor((2, 1, 1, 7), B), scalar(), scalar(B), scalar()],
        {"has_bias": True, "has_mask": True, "has_scale": True},
        {"has_bias": True, "has_mask": True, "has_scale": True},
        [(BF16, (2, 3, 5, 6)), (F32, (2, 3, 5)), (I64, ()), (I64, ())],
    ),
    (
        "sdpfa-bwd",
        Op.SDPFA_BWD,
        [
            tensor((2, 3, 5, 6), BF16),
            *ATTENTION_QKV,
            tensor((2, 3, 5, 6), BF16),
            tensor((2, 3, 5)),
            scalar(),
            scalar(B),
            tensor((), I64),
            tensor((), I64),
        ],
        {},
        {"has_scale": False},
        [(BF16, (2, 3, 5, 4)), (BF16, (2, 3, 7, 4)), (BF16, (2, 3, 7, 6))],
    ),
]


@pytest.mark.parametrize(
    "op, operands, attrs, normalized, expected",
    [c[1:] for c in MULTI_OPERAND],
    ids=[c[0] for c in MULTI_OPERAND],
)
def test_multi_operand_rules(op, operands, attrs, normalized, expected):
    inferred = infer(op, operands, attrs)
    assert [(o.dtype, o.shape) for o in inferred.outputs] == expected
    assert {k: inferred.attrs[k] for k in normalized} == normalized


ERRORS = [
    (
        "broadcast-mismatch",
        Op.ADD,
        [tensor((2, 3)), tensor((4,))],
        {},
        r"shapes \[2, 3\], \[4\] do not broadcast",
    ),
    ("arity", Op.ADD, [tensor((2,))], {}, "takes 2 operands, got 1"),
    (
        "unknown-attr",
        Op.SLICE,
        [tensor((2,))],
        {"starts": [0], "ends": [1], "manual_normalization": 0},
        "unknown attribute manual_normalization",
    ),
    ("bitwise-float", Op.BITWISE_AND, [tensor((2,)), tensor((2,))], {}, "needs integer or Bool operands"),
    ("shift-bool", Op.BITWISE_LEFT_SHIFT, [tensor((2,), B), scalar(I64)], {}, "needs integer operands"),
    ("neg-bool", Op.NEG, [tensor((2,), B)], {}, "not defined for Bool"),
    (
        "reduce-dim-range",
        Op.SUM,
        [tensor((2, 3))],
        {"dims": [2]},
        r"dim 2 is out of range for rank 2; allowed is \[-2, 1\]",
    ),
    ("reduce-dup-dim", Op.SUM, [tensor((2, 3))], {"dims": [1, -1]}, "names a dimension twice"),
    ("reduce-scalar", Op.SUM, [scalar(F64)], {}, "the operand must be a tensor"),
    ("reshape-two-minus-one", Op.RESHAPE, [tensor((2, 3))], {"new_shape": [-1, -1]}, "more than one -1"),
    (
        "reshape-numel",
        Op.RESHAPE,
        [tensor((2, 3))],
        {"new_shape": [4, 2]},
        r"new_shape \[4, 2\] has 8 elements but t: Float\[2, 3\] has 6",
    ),
    ("reshape-cannot-infer", Op.RESHAPE, [tensor((2, 3))], {"new_shape": [4, -1]}, "cannot infer the -1"),
    ("permute-not-perm", Op.PERMUTE, [tensor((2, 3))], {"dims": [0, 0]}, r"not a permutation of 0..1"),
    ("squeeze-non-one", Op.SQUEEZE, [tensor((2, 3))], {"dims": [0]}, "only extent-1 dims can be squeezed"),
    (
        "expand-non-one",
        Op.EXPAND,
        [tensor((2, 3))],
        {"shape": [4, 3]},
        "dim 0 of extent 2 cannot expand to 4",
    ),
    ("expand-rank", Op.EXPAND, [tensor((3,))], {"shape": [2, 3]}, "one entry per input dim"),
    (
        "bid-extent",
        Op.BROADCAST_IN_DIM,
        [tensor((3,))],
        {"shape": [2, 4], "broadcast_dims": [1]},
        "input dim 0 has extent 3 but maps to output dim 1 of extent 4",
    ),
    (
        "bid-order",
        Op.BROADCAST_IN_DIM,
        [tensor((1, 1))],
        {"shape": [2, 2], "broadcast_dims": [1, 0]},
        "strictly increasing",
    ),
    (
        "bid-count",
        Op.BROADCAST_IN_DIM,
        [tensor((3,))],
        {"shape": [2, 3], "broadcast_dims": []},
        "one entry per input",
    ),
    (
        "broadcast-flags",
        Op.BROADCAST,
        [tensor((3,))],
        {"is_broadcast_dim": [True, True]},
        "has 0 False entries",
    ),
    ("slice-stride", Op.SLICE, [tensor((4,))], {"starts": [0], "ends": [4], "strides": [2]}, "only stride 1"),
    ("slice-rank", Op.SLICE, [tensor((4, 2))], {"starts": [0], "ends": [4]}, "one entry per dim"),
    ("pad-odd", Op.PAD, [tensor((4,))], {"pad_widths": [1]}, r"must be \(left, right\) pairs"),
    ("pad-too-many", Op.PAD, [tensor((4,))], {"pad_widths": [1, 1, 1, 1]}, "at most 2 entries"),
    ("pad-crop-negative", Op.PAD, [tensor((4,))], {"pad_widths": [-3, -2]}, "below zero"),
    (
        "pad-int-with-nan",
        Op.PAD,
        [tensor((4,), I64), scalar(F64, float("nan"))],
        {"pad_widths": [1, 1]},
        r"the pad value nan does not fit t: Int\[4\]: Int holds whole numbers from -9223372036854775808",
    ),
    (
        "pad-int-with-infinity",
        Op.PAD,
        [tensor((4,), I64), scalar(F64, float("-inf"))],
        {"pad_widths": [1, 1]},
        "the pad value -inf does not fit",
    ),
    (
        "pad-int32-beyond-its-range",
        Op.PAD,
        [tensor((4,), I32), scalar(I64, 2**31)],
        {"pad_widths": [1, 1]},
        "the pad value 2147483648 does not fit t: Int32.* from -2147483648 to 2147483647",
    ),
    (
        "pad-int-with-complex",
        Op.PAD,
        [tensor((4,), I64), scalar(DataType.ComplexDouble, 1 + 2j)],
        {"pad_widths": [1, 1]},
        r"the pad value \(1\+2j\) is complex, but t: Int\[4\] holds real numbers",
    ),
    (
        "pad-bool-with-complex",
        Op.PAD,
        [tensor((4,), B), scalar(DataType.ComplexDouble, 1j)],
        {"pad_widths": [1, 1]},
        "the pad value 1j is complex",
    ),
    ("cat-rank", Op.CAT, [tensor((4,)), tensor((4, 1))], {"dim": 0}, "must share one rank"),
    (
        "cat-extent",
        Op.CAT,
        [tensor((4, 2)), tensor((4, 3))],
        {"dim": 0},
        "differ in dim 1; only the cat dim 0",
    ),
    ("topk-k", Op.TOPK, [tensor((2, 3))], {"k": 4, "dim": 1}, "k=4 is out of range"),
    ("index-select-float", Op.INDEX_SELECT, [tensor((4,)), tensor((2,))], {"dim": 0}, "integer dtype"),
    (
        "index-select-2d",
        Op.INDEX_SELECT,
        [tensor((4,)), tensor((2, 1), I64)],
        {"dim": 0},
        "index must be 1-D",
    ),
    ("select-range", Op.SELECT, [tensor((4,)), scalar(I64, 4)], {"dim": 0}, "index 4 is out of range"),
    ("gather-rank", Op.GATHER, [tensor((4, 2)), tensor((4,), I64)], {"dim": 0}, "must have the rank"),
    ("matmul-inner", Op.MATMUL, [tensor((2, 3)), tensor((4, 5))], {}, "inner extents differ"),
    ("matmul-int", Op.MATMUL, [tensor((2, 3), I64), tensor((3, 5), I64)], {}, "needs floating operands"),
    ("linear-features", Op.LINEAR, [tensor((2, 3)), tensor((4, 5))], {}, "in_features differ"),
    (
        "sdpfa-int",
        Op.SDPFA_FWD,
        [tensor((1, 1, 2, 4), I64)] * 3 + ATTENTION_SCALARS,
        {},
        "query must be Half",
    ),
    (
        "sdpfa-dtypes-differ",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV[:2], tensor((2, 3, 7, 6), F16), *ATTENTION_SCALARS],
        {},
        "must share one dtype",
    ),
    ("sdpfa-rank", Op.SDPFA_FWD, [tensor((3, 5, 4), BF16)] * 3 + ATTENTION_SCALARS, {}, "rank of at least 4"),
    (
        "sdpfa-head-size",
        Op.SDPFA_FWD,
        [ATTENTION_QKV[0], tensor((2, 3, 7, 8), BF16), ATTENTION_QKV[2], *ATTENTION_SCALARS],
        {},
        "share the head size E",
    ),
    (
        "sdpfa-sequence",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV[:2], tensor((2, 3, 6, 6), BF16), *ATTENTION_SCALARS],
        {},
        "share the sequence length S",
    ),
    (
        "sdpfa-heads",
        Op.SDPFA_FWD,
        [ATTENTION_QKV[0], tensor((2, 1, 7, 4), BF16), ATTENTION_QKV[2], *ATTENTION_SCALARS],
        {},
        "share the batch and head dims",
    ),
    (
        "sdpfa-bias-shape",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV, tensor((5, 7), BF16), *ATTENTION_SCALARS],
        {"has_bias": True},
        r"bias must broadcast to the scores \[N\*, H, L, S\] = \[2, 3, 5, 7\]",
    ),
    (
        "sdpfa-mask-dtype",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV, tensor((2, 3, 5, 7), BF16), *ATTENTION_SCALARS],
        {"has_mask": True},
        "mask must be Bool",
    ),
    (
        "sdpfa-causal-float",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV, scalar(), scalar()],
        {},
        "is_causal must be a Bool",
    ),
    ("sdpfa-arity", Op.SDPFA_FWD, ATTENTION_QKV + ATTENTION_SCALARS, {"has_scale": True}, "takes 6 operands"),
    (
        "sdpfa-negative-dropout",
        Op.SDPFA_FWD,
        [*ATTENTION_QKV, scalar(F64, -0.5), scalar(B)],
        {},
        "at least 0",
    ),
    (
        "sdpfa-bwd-logsumexp",
        Op.SDPFA_BWD,
        [
            tensor((2, 3, 5, 6), BF16),
            *ATTENTION_QKV,
            tensor((2, 3, 5, 6), BF16),
            tensor((2, 3, 5), BF16),
            *ATTENTION_SCALARS,
            tensor((), I64),
            tensor((), I64),
        ],
        {},
        r"logsumexp must be Float\[2, 3, 5\]",
    ),
    (
        "sdpfa-bwd-grad-output",
        Op.SDPFA_BWD,
        [
            tensor((2, 3, 5, 4), BF16),
            *ATTENTION_QKV,
            tensor((2, 3, 5, 6), BF16),
            tensor((2, 3, 5)),
            *ATTENTION_SCALARS,
            tensor((), I64),
            tensor((), I64),
        ],
        {},
        r"grad_output must be BFloat16\[2, 3, 5, 6\] \(the forward's output\)",
    ),
    ("cast-null", Op.CAST, [tensor((2,))], {"dtype": DataType.Null}, "is not a type to cast to"),
    ("cast-missing", Op.CAST, [tensor((2,))], {}, "needs dtype="),
    ("full-negative", Op.FULL, [scalar(F64, 1.0)], {"shape": [-1], "dtype": F32}, "negative extent"),
    ("fold-div-zero", Op.DIV, [scalar(I64, 1), scalar(I64, 0)], {}, r"div\(1, 0\) has no value"),
    ("var-correction", Op.VAR, [tensor((2,))], {"dims": [0], "correction": -1}, "correction -1 is negative"),
    (
        "keepdim-type",
        Op.SUM,
        [tensor((2,))],
        {"dims": [0], "keepdim": "yes"},
        "keepdim must be True or False",
    ),
]


@pytest.mark.parametrize("op, operands, attrs, message", [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_bad_definitions_are_rejected(op, operands, attrs, message):
    with pytest.raises(DefinitionError, match=message):
        infer(op, operands, attrs)


def test_error_names_the_op_and_the_builder_adds_the_location():
    b = FusionBuilder()
    x = b.define_tensor((2, 3), F32)
    with pytest.raises(DefinitionError, match=r"^line 3, column 5: squeeze: dim 1 of T0: Float\[2, 3\]"):
        b.add(Op.SQUEEZE, [x], {"dims": [1]}, loc=(3, 5))


def test_rank_above_the_limit_is_a_limit_error(monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_RANK", "3")
    assert out_specs(Op.EXP, [tensor((1, 2, 3))]) == [(F32, (1, 2, 3))]
    with pytest.raises(LimitError, match="rank 4 exceeds the highest rank 3; raise HFUSE_MAX_RANK"):
        infer(Op.BROADCAST, [tensor((1, 2, 3))], {"is_broadcast_dim": [True, False, False, False]})


def test_every_op_has_a_rule():
    missing = [op for op in Op if op not in OPS or OPS[op].rule is None]
    assert missing == []
