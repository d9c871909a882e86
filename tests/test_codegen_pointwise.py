"""Pointwise kernels against the reference: every elementwise emitter, views, resize and indexing ops."""

from __future__ import annotations

import dataclasses
import re

import pytest
import torch
from codegen_harness import DEVICE, DOMAIN, check, generate, load, poisoned, random_tensor, run, whole_group

from hfuse.builder import FusionBuilder
from hfuse.codegen.emit import NEGATIVE_ZERO
from hfuse.codegen.kernel import needs_wide_index
from hfuse.codegen.options import Options
from hfuse.dtypes import DataType
from hfuse.errors import KernelError, UnsupportedError
from hfuse.ir import Op
from hfuse.segment.model import Group, IterSpace, SchedulerKind

F32, F16, BF16, I32, I64, BOOL = (DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32,
                                  DataType.Int, DataType.Bool)  # fmt: skip
POINTWISE = SchedulerKind.POINTWISE
SHAPE = (4, 37)

FLOAT_UNARY = [
    Op.ABS, Op.ACOS, Op.ACOSH, Op.ASIN, Op.ASINH, Op.ATAN, Op.ATANH, Op.CEIL, Op.COS, Op.COSH, Op.EXP,
    Op.EXP2, Op.EXPM1, Op.ERF, Op.ERFC, Op.ERFINV, Op.ERFCINV, Op.FLOOR, Op.FRAC, Op.LGAMMA, Op.LOG,
    Op.LOG10, Op.LOG1P, Op.LOG2, Op.NEG, Op.LOGICAL_NOT, Op.RELU, Op.RECIPROCAL, Op.ROUND, Op.RSQRT,
    Op.SET, Op.SEGMENT_SET, Op.REAL, Op.SIGN, Op.SIGMOID, Op.SIGNBIT, Op.SILU, Op.SIN, Op.SINH, Op.SQRT,
    Op.TAN, Op.TANH, Op.TRUNC, Op.ISFINITE, Op.ISINF, Op.ISNAN, Op.ISNEGINF, Op.ISPOSINF, Op.ISREAL,
]  # fmt: skip
INT_UNARY = [Op.ABS, Op.NEG, Op.SIGN, Op.RELU, Op.BITWISE_NOT, Op.LOGICAL_NOT, Op.CEIL, Op.ROUND,
             Op.ISFINITE, Op.SIGNBIT]  # fmt: skip
FLOAT_BINARY = [
    Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.TRUEDIV, Op.ATAN2, Op.FMOD, Op.MOD, Op.REMAINDER, Op.POW,
    Op.MINIMUM, Op.MAXIMUM, Op.EQ, Op.NE, Op.GE, Op.GT, Op.LE, Op.LT, Op.LOGICAL_AND, Op.LOGICAL_OR,
    Op.NEXTAFTER,
]  # fmt: skip
INT_BINARY = [
    Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.FMOD, Op.REMAINDER, Op.MINIMUM, Op.MAXIMUM, Op.EQ, Op.LT,
    Op.BITWISE_AND, Op.BITWISE_OR, Op.BITWISE_XOR, Op.BITWISE_LEFT_SHIFT, Op.BITWISE_RIGHT_SHIFT,
    Op.LOGICAL_RIGHT_SHIFT, Op.GCD, Op.POW, Op.TRUEDIV,
]  # fmt: skip
REDUCED_FLOAT_OPS = [Op.EXP, Op.TANH, Op.SIGMOID, Op.SILU, Op.RSQRT, Op.ERF, Op.NEG, Op.ADD, Op.MUL, Op.DIV]


def _single(op: Op, dtypes: list[DataType], attrs: dict | None = None, shape=SHAPE):
    b = FusionBuilder()
    inputs = [b.define_tensor(shape, d) for d in dtypes]
    (out,) = b.add(op, inputs, attrs)
    b.add_output(out)
    fusion = b.build()
    return fusion, whole_group(fusion, POINTWISE)


def _ranges(fusion, op: Op, low_high=None) -> dict:
    return {name: low_high or DOMAIN.get(op, (-3.0, 3.0)) for name in fusion.inputs}


@pytest.mark.parametrize("op", FLOAT_UNARY, ids=lambda op: op.frontend_name)
def test_float_unary(op):
    fusion, group = _single(op, [F32])
    check(fusion, [group], _ranges(fusion, op))


@pytest.mark.parametrize("dtype", [F32, DataType.Double], ids=["float32", "float64"])
def test_tanh_at_its_extremes(dtype):
    fusion, group = _single(Op.TANH, [dtype], shape=(16,))
    special = [0.0, -0.0, 1e-30, -1e-7, 1e-3, 0.5, -8.0, 9.0, 20.0, -20.0, 88.0, -100.0, 1e30]
    x = torch.tensor([*special, float("inf"), float("-inf"), float("nan")], dtype=dtype.torch, device=DEVICE)
    (got,) = run(group, fusion, {fusion.inputs[0]: x}).values()
    torch.testing.assert_close(got, torch.tanh(x), equal_nan=True, atol=2e-7, rtol=1.3e-6)
    assert got[-3:-1].tolist() == [1.0, -1.0]


@pytest.mark.parametrize("op", [Op.SIN, Op.COS, Op.TAN], ids=lambda op: op.frontend_name)
@pytest.mark.parametrize("dtype", [F32, DataType.Double], ids=["float32", "float64"])
def test_trigonometry_far_from_zero_and_below_the_smallest_normal(op, dtype):
    """The GPU's approximate sin and cos reduce a large argument wrongly, and libdevice flushes a float
    denormal to zero; the kernels agree with torch on both (the GPU runs this test too)."""
    fusion, group = _single(op, [dtype], shape=(16,))
    special = [
        -1.7014118e38,
        -2.88e37,
        3.0e38,
        1e30,
        123456.7,
        -1e5,
        3.0,
        -0.5,
        1e-39,
        -1e-44,
        0.0,
        -0.0,
        1e-30,
    ]
    x = torch.tensor([*special, float("inf"), float("-inf"), float("nan")], dtype=dtype.torch, device=DEVICE)
    (got,) = run(group, fusion, {fusion.inputs[0]: x}).values()
    want = {Op.SIN: torch.sin, Op.COS: torch.cos, Op.TAN: torch.tan}[op](x)
    torch.testing.assert_close(got, want, equal_nan=True, atol=0, rtol=4e-7 if dtype is F32 else 1e-15)
    tiny = [8, 9]  # denormal floats: sin and tan are the argument itself, cos is 1
    assert got[tiny].tolist() == want[tiny].tolist()


@pytest.mark.parametrize(
    "op, warps", [(Op.TANH, 4), (Op.EXP, 4), (Op.SILU, 4), (Op.NEG, 8), (Op.MUL, 8)], ids=str
)
def test_pointwise_warps_follow_the_math(op, warps):
    fusion, group = _single(op, [F32] * (2 if op is Op.MUL else 1), shape=(64, 1024))
    assert generate(group, fusion).num_warps == warps


@pytest.mark.parametrize("op", INT_UNARY, ids=lambda op: op.frontend_name)
@pytest.mark.parametrize("dtype", [I32, I64], ids=["int32", "int64"])
def test_int_unary(op, dtype):
    fusion, group = _single(op, [dtype])
    check(fusion, [group], _ranges(fusion, op, (-9, 9)))


# lgamma has poles at 0, -1, -2, ...: fp32 cannot place values near them precisely enough to compare.
@pytest.mark.parametrize("low_high", [(-2.9, -2.1), (-1.9, -1.1), (-0.9, -0.1)], ids=str)
def test_lgamma_of_negative_numbers(low_high):
    fusion, group = _single(Op.LGAMMA, [F32])
    check(fusion, [group], _ranges(fusion, Op.LGAMMA, low_high))


@pytest.mark.parametrize("op", FLOAT_BINARY, ids=lambda op: op.frontend_name)
def test_float_binary(op):
    fusion, group = _single(op, [F32, F32])
    check(fusion, [group])


@pytest.mark.parametrize("op", INT_BINARY, ids=lambda op: op.frontend_name)
@pytest.mark.parametrize("dtype", [I32, I64], ids=["int32", "int64"])
def test_int_binary(op, dtype):
    fusion, group = _single(op, [dtype, dtype])
    a, b = fusion.inputs
    low_b = 0 if op in (Op.BITWISE_LEFT_SHIFT, Op.BITWISE_RIGHT_SHIFT, Op.LOGICAL_RIGHT_SHIFT, Op.POW) else 1
    check(fusion, [group], {a: (-20, 20), b: (low_b, 6)})


@pytest.mark.parametrize(
    "op",
    [Op.LOGICAL_AND, Op.LOGICAL_OR, Op.BITWISE_AND, Op.BITWISE_XOR, Op.EQ, Op.NE],
    ids=lambda op: op.frontend_name,
)
def test_bool_binary(op):
    fusion, group = _single(op, [BOOL, BOOL])
    check(fusion, [group])


@pytest.mark.parametrize("op", REDUCED_FLOAT_OPS, ids=lambda op: op.frontend_name)
@pytest.mark.parametrize("dtype", [F16, BF16], ids=["float16", "bfloat16"])
def test_reduced_float_upcasts_and_rounds_once(op, dtype):
    fusion, group = _single(op, [dtype] * (2 if op.family.value == "binary" else 1))
    check(fusion, [group], _ranges(fusion, op, (0.5, 3.0)))


TERNARY = [
    ("where", Op.WHERE, [BOOL, F32, F32], {}),
    ("where_int_condition", Op.WHERE, [I32, F16, F16], {}),
    ("lerp", Op.LERP, [F32, F32, F32], {}),
    ("clamp", Op.CLAMP, [F32, F32, F32], {}),
    ("clamp_int", Op.CLAMP, [I64, I64, I64], {}),
    ("threshold", Op.THRESHOLD, [F32, F32, F32], {}),
    ("addcmul", Op.ADDCMUL, [F32, F32, F32, F32], {}),
]


@pytest.mark.parametrize(("op", "dtypes", "ranges"), [c[1:] for c in TERNARY], ids=[c[0] for c in TERNARY])
def test_ternary(op, dtypes, ranges):
    fusion, group = _single(op, dtypes)
    check(fusion, [group], ranges)


CASTS = [(F32, F16), (F32, BF16), (F16, F32), (BF16, F16), (F32, I32), (I64, F32), (F32, BOOL), (BOOL, F32),
         (I32, I64), (I64, BOOL)]  # fmt: skip


@pytest.mark.parametrize(("source", "target"), CASTS, ids=[f"{s.name}-{t.name}" for s, t in CASTS])
def test_cast(source, target):
    fusion, group = _single(Op.CAST, [source], {"dtype": target})
    check(fusion, [group])


def test_scalars_constant_and_symbolic():
    b = FusionBuilder()
    x = b.define_tensor([3, 50], F32)
    alpha = b.define_scalar(F32)
    two = b.define_scalar(DataType.Double, 2.0)
    (scaled,) = b.add(Op.MUL, [x, alpha])
    (squared,) = b.add(Op.POW, [scaled, two])
    (shifted,) = b.add(Op.SUB, [squared, two])
    b.add_output(shifted)
    fusion = b.build()
    check(fusion, [whole_group(fusion, POINTWISE)])


def test_a_symbolic_double_scalar_reaches_the_kernel_as_a_double():
    """Triton passes an unannotated Python float as float32 on a GPU: 1e300 would become inf there."""
    b = FusionBuilder()
    x = b.define_tensor([3, 5], DataType.Double)
    big = b.define_scalar(DataType.Double)
    single = b.define_scalar(F32)
    (y,) = b.add(Op.ADD, [x, big])
    (z,) = b.add(Op.MUL, [y, single])
    b.add_output(z)
    fusion = b.build()
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    header = next(line for line in source.splitlines() if line.startswith("def hfuse_"))
    assert f"{big.name}: tl.float64" in header and f"{single.name}: tl" not in header
    assert f"tl.cast({big.name}" not in source


def test_an_int_scalar_reaches_the_kernel_as_an_int64():
    """Triton passes a Python int that fits as int32 on a GPU: `S >> 63` would not compile."""
    b = FusionBuilder()
    amounts = b.define_tensor([3, 5], I64)
    s = b.define_scalar(I64)
    (shifted,) = b.add(Op.BITWISE_RIGHT_SHIFT, [s, amounts])
    b.add_output(shifted)
    fusion = b.build()
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    header = next(line for line in source.splitlines() if line.startswith("def hfuse_"))
    assert f"{s.name}: tl.int64" in header
    check(fusion, [whole_group(fusion, POINTWISE)], {amounts.name: (-3, 70), s.name: (-50, 50)})


def test_a_symbolic_double_scalar_meets_a_float_tensor_in_float32():
    """torch's CUDA kernels convert it to the op's float32 math: 1e300 + -inf is NaN there, not -inf."""
    b = FusionBuilder()
    x = b.define_tensor([3, 5], F16)
    big = b.define_scalar(DataType.Double)
    (y,) = b.add(Op.ADD, [x, big])
    b.add_output(y)
    fusion = b.build()
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    assert f"tl.cast({big.name}, tl.float32)" in source
    check(fusion, [whole_group(fusion, POINTWISE)])


@pytest.mark.parametrize(
    ("dtype", "constant", "emitted"),
    [
        (F32, 1e300, 'float("inf")'),
        (F32, -1e-300, NEGATIVE_ZERO),  # -0.0 written from its bits
        (F16, 70000.0, "70000.0"),
        (BF16, 1e-300, "0.0"),
        (F32, -5.877471754111438e-39, "tl.cast(-5.877471754111438e-39, tl.float32)"),  # a float64 to Triton
    ],
)
def test_a_float_constant_meets_a_tensor_in_the_ops_float32_math(dtype, constant, emitted):
    """On a GPU Triton would compare a Float tensor with the literal 1e300 in float64; torch's CUDA kernels
    convert the scalar to the op's float32 math first (inf), also beside a Half tensor (70000.0 stays)."""
    b = FusionBuilder()
    x = b.define_tensor([2, 3], dtype)
    c = b.define_scalar(DataType.Double, constant)
    (same,) = b.add(Op.EQ, [x, c])
    b.add_output(same)
    fusion = b.build()
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    (compared,) = [line for line in source.splitlines() if " == " in line]
    assert emitted in compared.split(" == ")[1], compared
    check(fusion, [whole_group(fusion, POINTWISE)])


@pytest.mark.parametrize(
    ("dtype", "helper"), [(F16, "_int_operand_in_half"), (BF16, "_int_operand_in_bfloat16")]
)
def test_an_int_tensor_beside_a_16_bit_float_one_converts_as_torch_does_on_the_device(dtype, helper):
    """torch's CUDA kernels convert it straight to the float32 math (2**40 stays finite beside a Half),
    its CPU kernels to the 16-bit type first: the module defines the helper for each place."""
    b = FusionBuilder()
    x = b.define_tensor([2, 3], dtype)
    n = b.define_tensor([2, 3], I64)
    (total,) = b.add(Op.ADD, [x, n])
    b.add_output(total)
    fusion = b.build()
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    assert f"{helper}(t1)" in source
    gpu_branch = source.split(f"def {helper}(x):")[2]
    assert gpu_branch.split("\n")[1].strip() == "return x.to(tl.float32)"
    check(fusion, [whole_group(fusion, POINTWISE)])


@pytest.mark.parametrize(("op", "single", "double"), [
    (Op.FLOOR, "_floor_f32(", "tl.floor("), (Op.CEIL, "_ceil_f32(", "tl.ceil("),
    (Op.SQRT, "_sqrt_f32(", "tl.sqrt("), (Op.RSQRT, "_rsqrt_f32(", "tl.rsqrt("),
])  # fmt: skip
def test_single_precision_floor_ceil_and_roots_keep_subnormals_on_a_gpu(op, single, double):
    """Float, Half and BFloat16 compute in float32 through the PTX forms without .ftz (the GPU branch of the
    helper); Double keeps Triton's own."""
    for dtype, wanted in ((F32, single), (BF16, single), (DataType.Double, double)):
        fusion, group = _single(op, [dtype])
        source = generate(group, fusion).source
        assert wanted in source.split("def hfuse_")[1], dtype
        if wanted == single:
            assert "inline_asm_elementwise" in source and ".ftz" not in source
        check(fusion, [group])


def test_broadcasting_and_non_contiguous_inputs():
    b = FusionBuilder()
    x = b.define_tensor([6, 5, 7], F32, strides=[1, 6, 30])  # column-major
    row = b.define_tensor([7], F16)
    col = b.define_tensor([6, 5], F32, strides=[1, 8])  # a strided view with a gap
    (row_b,) = b.add(Op.BROADCAST_IN_DIM, [row], {"shape": [6, 5, 7], "broadcast_dims": [2]})
    (col_b,) = b.add(Op.BROADCAST, [col], {"is_broadcast_dim": [False, False, True]})
    (col_e,) = b.add(Op.EXPAND, [col_b], {"shape": [6, 5, 7]})
    (y,) = b.add(Op.ADD, [x, row_b])
    (z,) = b.add(Op.MUL, [y, col_e])
    (out,) = b.add(Op.CAST, [z], {"dtype": BF16})
    b.add_output(out)
    fusion = b.build()
    check(fusion, [whole_group(fusion, POINTWISE)])


@pytest.mark.parametrize("x_strides", [None, [1, 31]], ids=["row-major", "column-major"])
def test_a_kernel_whose_values_all_lie_in_the_flat_order_addresses_them_by_the_flat_index(x_strides):
    """At prime extents the digits of the flat index (`offs // 37`, `offs % 37`) address a row-major value
    as `offs` itself does; written as `offs`, Triton sees contiguous addresses, and no digit is defined. One
    value in another layout (column-major x) needs the digits: then every value is addressed by them (a
    kernel mixing both forms was slower on the GPU)."""
    b = FusionBuilder()
    x = b.define_tensor([31, 37], BF16, strides=x_strides)
    y = b.define_tensor([31, 37], BF16)
    (gate,) = b.add(Op.SIGMOID, [y])
    (out,) = b.add(Op.MUL, [x, gate])
    b.add_output(out)
    fusion = b.build()
    group = whole_group(fusion, POINTWISE)
    source = generate(group, fusion).source
    by_flat_index = set(re.findall(r"(t\d+)_ptr \+ offs\b", source))
    if x_strides is None:
        assert by_flat_index == {x.name.lower(), y.name.lower(), out.name.lower()}
        assert "offs // " not in source and "offs % " not in source
    else:
        assert not by_flat_index
        assert re.search(rf"{x.name.lower()}_ptr \+ d0 \+ d1 \* 31,", source)
        assert re.search(rf"{y.name.lower()}_ptr \+ d0 \* 37 \+ d1,", source)
    check(fusion, [group])


def test_a_broadcast_operand_keeps_the_digits_for_every_value():
    b = FusionBuilder()
    x = b.define_tensor([31, 37], F32)
    bias = b.define_tensor([37], F32)
    (bias_b,) = b.add(Op.BROADCAST_IN_DIM, [bias], {"shape": [31, 37], "broadcast_dims": [1]})
    (out,) = b.add(Op.ADD, [x, bias_b])
    b.add_output(out)
    fusion = b.build()
    group = whole_group(fusion, POINTWISE)
    source = generate(group, fusion).source
    assert re.search(rf"{bias.name.lower()}_ptr \+ d1,", source)
    assert re.search(rf"{x.name.lower()}_ptr \+ d0 \* 37 \+ d1,", source)
    check(fusion, [group])


def test_a_flat_index_alone_defines_no_digits():
    fusion, group = _single(Op.ADD, [F32, F32], shape=(7, 11, 13))
    source = generate(group, fusion).source
    assert "offs // " not in source and "offs % " not in source
    assert source.count("+ offs,") == 3
    check(fusion, [group])


@pytest.mark.parametrize(
    ("shape", "block", "branches"),
    [
        ((7, 37), 64, "if prog < 4:"),
        ((8, 16), 64, None),
        ((5, 3), 64, None),
        ((2, 3, 31), 32, "if prog < 5:"),
    ],
    ids=["tail", "no-tail", "one-program", "3-d-tail"],
)
def test_full_blocks_run_unmasked_and_the_last_masked(shape, block, branches):
    """Where the flat index does not end on a block, every program but the last runs without a mask (a mask
    at a numel no multiple of the vector width keeps Triton from vector accesses); the last is masked."""
    b = FusionBuilder()
    x = b.define_tensor(shape, BF16)
    cols = b.define_tensor(
        shape, F32, strides=[1] + [shape[0]] * (len(shape) - 1) if len(shape) == 2 else None
    )
    (gate,) = b.add(Op.SIGMOID, [cols])
    (out,) = b.add(Op.MUL, [x, gate])
    b.add_output(out)
    fusion = b.build()
    group = whole_group(fusion, POINTWISE)
    options = dataclasses.replace(Options(), pointwise_block=block)
    source = generate(group, fusion, options).source
    if branches:
        assert branches in source and source.count("mask=mask") == 3
        unmasked = source[source.index(branches) : source.index("else:")]
        assert "mask" not in unmasked and unmasked.count("tl.load(") == 2
    else:
        assert "if prog <" not in source
    check(fusion, [group], options=options)


def _seed(batch=2, seq=8, heads=4, head_dim=4, dtype=F32):
    hidden = heads * head_dim
    b = FusionBuilder()
    x = b.define_tensor([batch, seq, 3 * hidden], dtype)
    for i in range(3):
        attrs = {"starts": [0, 0, hidden * i], "ends": [batch, seq, hidden * (i + 1)], "strides": [1, 1, 1]}
        (piece,) = b.add(Op.SLICE, [x], attrs)
        (split,) = b.add(Op.RESHAPE, [piece], {"new_shape": [batch, seq, heads, head_dim]})
        (out,) = b.add(Op.PERMUTE, [split], {"dims": [0, 2, 1, 3]})
        b.add_output(out)
    return b.build()


@pytest.mark.parametrize("dtype", [F32, BF16], ids=["float32", "bfloat16"])
def test_seed_slice_reshape_permute_in_one_program(dtype):
    fusion = _seed(dtype=dtype)
    group = whole_group(fusion, POINTWISE)
    kernel = generate(group, fusion)
    assert kernel.grid == (1,) and len(kernel.outputs) == 3
    assert kernel.source.count("tl.load(") == 3  # each output element is read once from T0
    check(fusion, [group])


def test_outputs_of_different_shapes_split_the_grid():
    b = FusionBuilder()
    x = b.define_tensor([40, 30], F32)
    (y,) = b.add(Op.EXP, [x])
    (t,) = b.add(Op.SLICE, [x], {"starts": [0, 5], "ends": [40, 6], "strides": [1, 1]})
    (u,) = b.add(Op.NEG, [t])
    b.add_output(y)
    b.add_output(u)
    fusion = b.build()
    group = whole_group(fusion, POINTWISE)
    kernel = generate(group, fusion)
    assert [p["programs"] for p in kernel.config["parts"]] == [2, 1] and kernel.grid == (3,)
    check(fusion, [group])


RESIZE = [
    ("pad", Op.PAD, [[5, 6]], {"pad_widths": [2, 1, 0, 3]}),
    ("pad_crop", Op.PAD, [[5, 6]], {"pad_widths": [-1, 2]}),
    ("cat", Op.CAT, [[5, 2], [5, 3], [5, 4]], {"dim": 1}),
    ("cat_dim0", Op.CAT, [[2, 6], [3, 6]], {"dim": 0}),
    ("slice", Op.SLICE, [[9, 8]], {"starts": [1, 2], "ends": [9, 7], "strides": [1, 1]}),
    ("reshape_merge_split", Op.RESHAPE, [[6, 4, 5]], {"new_shape": [3, 8, 5]}),
    ("reshape_flatten", Op.RESHAPE, [[3, 1, 4]], {"new_shape": [12]}),
    ("squeeze", Op.SQUEEZE, [[3, 1, 4, 1]], {"dims": [1, 3]}),
    ("permute", Op.PERMUTE, [[2, 3, 4]], {"dims": [2, 0, 1]}),
    ("triu", Op.TRIU, [[5, 7]], {"diagonal": 1}),
    ("triu_negative", Op.TRIU, [[2, 6, 6]], {"diagonal": -2}),
]


@pytest.mark.parametrize(("op", "shapes", "attrs"), [c[1:] for c in RESIZE], ids=[c[0] for c in RESIZE])
@pytest.mark.parametrize("dtype", [F32, F16, I64], ids=["float32", "float16", "int64"])
def test_views_and_resize(op, shapes, attrs, dtype):
    b = FusionBuilder()
    inputs = [b.define_tensor(shape, dtype) for shape in shapes]
    if op is Op.PAD:
        inputs.append(b.define_scalar(dtype, 7))
    (out,) = b.add(op, inputs, attrs)
    b.add_output(out)
    fusion = b.build()
    check(fusion, [whole_group(fusion, POINTWISE)])


def test_pad_then_cat_then_reshape_chain():
    b = FusionBuilder()
    x = b.define_tensor([4, 6], F32)
    y = b.define_tensor([4, 2], F32)
    fill = b.define_scalar(F32)
    (half,) = b.add(Op.SLICE, [x], {"starts": [0, 3], "ends": [4, 6], "strides": [1, 1]})
    (neg,) = b.add(Op.NEG, [half])
    (rotated,) = b.add(Op.CAT, [neg, x, y], {"dim": 1})
    (padded,) = b.add(Op.PAD, [rotated, fill], {"pad_widths": [1, 1]})
    (out,) = b.add(Op.RESHAPE, [padded], {"new_shape": [2, 2, 13]})
    b.add_output(out)
    fusion = b.build()
    check(fusion, [whole_group(fusion, POINTWISE)])


INDEXING = [
    ("index_select", Op.INDEX_SELECT, [6, 5], [4], {"dim": 0}),
    ("index_select_0d_index_dim_0", Op.INDEX_SELECT, [6, 5], [], {"dim": 0}),  # one slice, as torch
    ("index_select_0d_index_dim_1", Op.INDEX_SELECT, [6, 5], [], {"dim": 1}),
    ("gather", Op.GATHER, [5, 6], [3, 6], {"dim": 1}),
    ("take_along_axis", Op.TAKE_ALONG_AXIS, [5, 6], [5, 2], {"dim": 1}),
]


@pytest.mark.parametrize(
    ("op", "shape", "index_shape", "attrs"), [c[1:] for c in INDEXING], ids=[c[0] for c in INDEXING]
)
@pytest.mark.parametrize("index_dtype", [I64, I32], ids=["int64", "int32"])
def test_indexing(op, shape, index_shape, attrs, index_dtype):
    b = FusionBuilder()
    x = b.define_tensor(shape, BF16)
    index = b.define_tensor(index_shape, index_dtype)
    (out,) = b.add(op, [x, index], attrs)
    b.add_output(out)
    fusion = b.build()
    extent = shape[attrs["dim"]]
    check(fusion, [whole_group(fusion, POINTWISE)], {x.name: (-3, 3), index.name: (0, extent)})


def test_select_and_creation_ops():
    b = FusionBuilder()
    x = b.define_tensor([3, 4, 5], F32)
    where = b.define_scalar(I64, 2)
    (row,) = b.add(Op.SELECT, [x, where], {"dim": 1})
    start, step = b.define_scalar(F32, 0.5), b.define_scalar(F32, 0.25)
    (ramp,) = b.add(Op.IOTA, [start, step], {"length": 5, "dtype": F32})
    (ramp_b,) = b.add(Op.BROADCAST_IN_DIM, [ramp], {"shape": [3, 5], "broadcast_dims": [1]})
    (ones,) = b.add(Op.FULL, [b.define_scalar(F32, 1.5)], {"shape": [3, 5], "dtype": F32})
    (ids,) = b.add(Op.IOTA, [], {"length": 5, "dtype": I64})
    (y,) = b.add(Op.ADD, [row, ramp_b])
    (z,) = b.add(Op.MUL, [y, ones])
    b.add_output(z)
    b.add_output(ids)
    fusion = b.build()
    check(fusion, [whole_group(fusion, POINTWISE)])


def test_large_tensors_use_int64_offsets():
    b = FusionBuilder()
    x = b.define_tensor([3, 1 << 30], F16, strides=[1 << 30, 1])
    (y,) = b.add(Op.NEG, [x])
    b.add_output(y)
    fusion = b.build()
    assert needs_wide_index(list(fusion.values), 1)
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    assert "tl.program_id(0).to(tl.int64)" in source


def test_small_tensors_keep_int32_offsets():
    fusion, group = _single(Op.NEG, [F32])
    assert "int64" not in generate(group, fusion).source


def test_no_kernel_for_alias_and_torch_groups():
    fusion, group = _single(Op.NEG, [F32])
    for kind in (SchedulerKind.ALIAS, SchedulerKind.TORCH):
        alias = Group(3, kind, group.exprs, group.inputs, group.outputs)
        with pytest.raises(UnsupportedError, match=f"group 3 is a {kind.value} group: it launches no kernel"):
            generate(alias, fusion)


def test_a_group_without_a_plan_is_refused():
    fusion, group = _single(Op.NEG, [F32])
    unplanned = Group(0, POINTWISE, group.exprs, group.inputs, group.outputs)
    with pytest.raises(UnsupportedError, match="group 0 has no iteration space"):
        generate(unplanned, fusion)


def test_an_output_off_the_planned_shape_is_refused():
    fusion, group = _single(Op.NEG, [F32])
    with pytest.raises(UnsupportedError, match=r"iterates over \[4, 36\] but writes T1: Float\[4, 37\]"):
        generate(dataclasses.replace(group, space=IterSpace((4, 36))), fusion)


def test_unsupported_op_names_the_op_and_the_expr():
    fusion, _ = _single(Op.CUMSUM, [F32], {"dim": 1})
    with pytest.raises(
        UnsupportedError, match=r"generating `T1 = fd.ops.cumsum\(T0, dim=1\)`.*torch segment"
    ):
        generate(whole_group(fusion, POINTWISE), fusion)


def test_reduction_in_a_pointwise_group_is_refused():
    fusion, _ = _single(Op.SUM, [F32], {"dims": [1], "keepdim": False, "dtype": F32})
    with pytest.raises(UnsupportedError, match="fd.ops.sum.*only be generated in a reduction"):
        generate(whole_group(fusion, POINTWISE), fusion)


def test_launch_refuses_tensors_with_other_strides():
    fusion, group = _single(Op.NEG, [F32])
    module = load(generate(group, fusion))
    x = random_tensor(fusion.value("T0")).t().contiguous().t()
    with pytest.raises(
        KernelError,
        match=r"T0: the kernel was generated for torch.float32 \[4, 37\] with "
        r"strides \[37, 1\], got .* strides \[1, 4\]",
    ):
        module.launch(x, poisoned(fusion.value("T1")))


def test_kernel_source_is_readable():
    fusion = _seed()
    source = generate(whole_group(fusion, POINTWISE), fusion).source
    assert source.startswith('"""hfuse_pointwise_g0: pointwise kernel of group 0')
    assert "# T3 = fd.ops.permute(T2, dims=(0, 2, 1, 3))" in source
    assert "def launch(T0, T3, T6, T9):" in source
    assert not re.search(r"^\s*\w+ = \w+ = ", source, re.MULTILINE)  # no chained assignment
    assert "make_block_ptr" not in source and "libdevice" not in source


def test_bfloat16_casts_round_to_nearest_even():
    """The rounding error of a bf16 cast, magnified: truncation instead of rounding would show."""
    b = FusionBuilder()
    x = b.define_tensor([8, 64], F32)
    (low,) = b.add(Op.CAST, [x], {"dtype": BF16})
    (back,) = b.add(Op.CAST, [low], {"dtype": F32})
    (error,) = b.add(Op.SUB, [back, x])
    (magnified,) = b.add(Op.MUL, [error, b.define_scalar(F32, 1000.0)])
    b.add_output(magnified)
    b.add_output(low)
    fusion = b.build()
    check(fusion, [whole_group(fusion, POINTWISE)])


def test_a_one_element_output_of_a_padded_slice_stores_through_a_block_pointer():
    """The pad's test of a constant position is a block of one element; a GPU's Triton stores no block
    through a scalar pointer (the interpreter does), so the store's address takes the program's block."""
    b = FusionBuilder()
    x = b.define_tensor([2047], DataType.Float)
    (padded,) = b.add(Op.PAD, [x, b.define_scalar(DataType.Double, float("nan"))], {"pad_widths": (0, 2)})
    (one,) = b.add(Op.SLICE, [padded], {"starts": (1585,), "ends": (1586,), "strides": (1,)})
    b.add_output(one)
    fusion = b.build()
    group = whole_group(fusion, SchedulerKind.POINTWISE)
    assert re.search(r"tl\.store\(t\d+_ptr \+ offs(?: \* 0)?, ", generate(group, fusion).source)
    check(fusion, [group])
