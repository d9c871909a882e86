"""print_fusion writes runnable scripts; replaying the printed calls gives an equal Fusion."""

import pytest
import torch

from hfuse import DataType, FusionDefinition
from hfuse.layout import layout_of, strides_for
from hfuse.printer import literal, print_fusion


def record(define) -> FusionDefinition:
    with FusionDefinition() as fd:
        define(fd)
    return fd


def body(text: str) -> list[str]:
    """The lines of the printed definition function, without indentation."""
    lines = text.splitlines()
    start = lines.index("def nvfuser_fusion_id0(fd : FusionDefinition) -> None :") + 1
    end = lines.index("with FusionDefinition() as fd:")
    return [line.strip() for line in lines[start:end] if line.strip()]


def inputs_block(text: str) -> list[str]:
    lines = text.splitlines()
    return [line.strip() for line in lines[lines.index("inputs = [") + 1 : lines.index("]")]]


def seed_old_spelling(fd):
    t0 = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[True, True, True], dtype=DataType.Float)
    t1 = fd.ops.slice(t0, [0, 0, 8], [2, 4, 16])
    t2 = fd.ops.reshape(t1, [2, 4, 8], [2, 4, 2, 4])
    fd.add_output(fd.ops.permute(t2, [0, 2, 1, 3]))


SEED_LINES = [
    "T0 = fd.define_tensor(shape=[2, 4, 24], contiguity=[True, True, True], dtype=DataType.Float, "
    "is_cpu=False, stride_order=[2, 1, 0])",
    "T1 = fd.ops.slice(T0, start_indices=[0, 0, 8], end_indices=[2, 4, 16], strides=[1, 1, 1])",
    "T2 = fd.ops.reshape(T1, new_shape=[2, 4, 2, 4])",
    "T3 = fd.ops.permute(T2, dims=[0, 2, 1, 3])",
    "fd.add_output(T3)",
]


def seed_as_printed(fd):
    T0 = fd.define_tensor(shape=[2, 4, 24], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False,
                          stride_order=[2, 1, 0])  # fmt: skip
    T1 = fd.ops.slice(T0, start_indices=[0, 0, 8], end_indices=[2, 4, 16], strides=[1, 1, 1])
    T2 = fd.ops.reshape(T1, new_shape=[2, 4, 2, 4])
    T3 = fd.ops.permute(T2, dims=[0, 2, 1, 3])
    fd.add_output(T3)


def strided_direct_style(fd):
    t0 = fd.from_pytorch(STRIDED)
    t1 = fd.define_tensor([-1], dtype=DataType.Int)
    scale = fd.define_scalar(None, dtype=DataType.Double)
    var, mean = fd.ops.var_mean(t0 * scale, axes=[-1], correction=0)
    fd.add_output(fd.ops.where(var > float("inf"), mean, float("-inf")), stride_order=[0, 1])
    fd.add_output(fd.ops.cast(t1, DataType.Float) + 1)
    fd.add_output(t0 + 1.0, alias_input=t0)


STRIDED = torch.randn(3, 4, 6).permute(0, 2, 1)[:, 1:3, :]
INTS = torch.randint(0, 9, (10,))[::2]


def creation(fd):
    x = fd.define_tensor([2, 3], [True, True])
    ramp = fd.ops.iota(3, dtype=DataType.Float)
    padded = fd.ops.pad(x, [1, 0, 0, 1])
    fill = fd.ops.full(size=[3, 4], arg=fd.define_constant(0.5), dtype=DataType.Float)
    joined = fd.ops.cat([padded, fill], 0)
    ramps = fd.ops.broadcast_in_dim(ramp, output_shape=[2, 3], broadcast_dims=[1])
    fd.add_output(fd.ops.sum(joined, 1) + fd.ops.reshape(ramps, [2, 3], [6]))


def strided_as_printed(fd):
    T0 = fd.define_tensor(shape=[3, 2, 4], contiguity=[True, False, True], dtype=DataType.Float, is_cpu=False,
                          stride_order=[2, 0, 1])  # fmt: skip
    T1 = fd.define_tensor(shape=[5], contiguity=[False], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    S0 = fd.define_scalar(None, dtype=DataType.Double)
    T2 = fd.ops.mul(T0, S0)
    T3, T4 = fd.ops.var_mean(T2, dims=[2], correction=0, keepdim=False)
    S1 = fd.define_scalar(float("inf"), dtype=DataType.Double)
    T5 = fd.ops.gt(T3, S1)
    S2 = fd.define_scalar(float("-inf"), dtype=DataType.Double)
    T6 = fd.ops.where(T5, T4, S2)
    T7 = fd.ops.cast(T1, dtype=DataType.Float)
    S3 = fd.define_scalar(1, dtype=DataType.Int)
    T8 = fd.ops.add(T7, S3)
    S4 = fd.define_scalar(1.0, dtype=DataType.Double)
    T9 = fd.ops.add(T0, S4)
    fd.add_output(T6, stride_order=[0, 1])
    fd.add_output(T8)
    fd.add_output(T9, alias_input=T0)


STRIDED_LINES = [
    "T0 = fd.define_tensor(shape=[3, 2, 4], contiguity=[True, False, True], dtype=DataType.Float, "
    "is_cpu=False, stride_order=[2, 0, 1])",
    "T1 = fd.define_tensor(shape=[5], contiguity=[False], dtype=DataType.Int, is_cpu=False, "
    "stride_order=[0])",
    "S0 = fd.define_scalar(None, dtype=DataType.Double)",
    "T2 = fd.ops.mul(T0, S0)",
    "T3, T4 = fd.ops.var_mean(T2, dims=[2], correction=0, keepdim=False)",
    'S1 = fd.define_scalar(float("inf"), dtype=DataType.Double)',
    "T5 = fd.ops.gt(T3, S1)",
    'S2 = fd.define_scalar(float("-inf"), dtype=DataType.Double)',
    "T6 = fd.ops.where(T5, T4, S2)",
    "T7 = fd.ops.cast(T1, dtype=DataType.Float)",
    "S3 = fd.define_scalar(1, dtype=DataType.Int)",
    "T8 = fd.ops.add(T7, S3)",
    "S4 = fd.define_scalar(1.0, dtype=DataType.Double)",
    "T9 = fd.ops.add(T0, S4)",
    "fd.add_output(T6, stride_order=[0, 1])",
    "fd.add_output(T8)",
    "fd.add_output(T9, alias_input=T0)",
]
STRIDED_INPUTS = [
    "torch.randn(68, dtype=torch.float32, device='cuda:0').as_strided((3, 2, 4), (24, 1, 6)),",
    "torch.randint(0, 10, (9,), dtype=torch.int64, device='cuda:0').as_strided((5,), (2,)),",
    "0.5,",
]


def creation_as_printed(fd):
    T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False,
                          stride_order=[1, 0])  # fmt: skip
    S0 = fd.define_scalar(0.0, dtype=DataType.Float)
    S1 = fd.define_scalar(1.0, dtype=DataType.Float)
    T1 = fd.ops.iota(length=3, start=S0, step=S1, dtype=DataType.Float)
    S2 = fd.define_scalar(0.0, dtype=DataType.Float)
    T2 = fd.ops.pad(T0, pad_widths=[1, 0, 0, 1], value=S2)
    S3 = fd.define_scalar(0.5, dtype=DataType.Double)
    T3 = fd.ops.full(shape=[3, 4], fill_value=S3, dtype=DataType.Float)
    T4 = fd.ops.cat([T2, T3], dim=0)
    T5 = fd.ops.broadcast_in_dim(T1, shape=[2, 3], broadcast_dims=[1])
    T6 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.reshape(T5, new_shape=[6])
    T8 = fd.ops.add(T6, T7)
    fd.add_output(T8)


CREATION_LINES = [
    "T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, "
    "stride_order=[1, 0])",
    "S0 = fd.define_scalar(0.0, dtype=DataType.Float)",
    "S1 = fd.define_scalar(1.0, dtype=DataType.Float)",
    "T1 = fd.ops.iota(length=3, start=S0, step=S1, dtype=DataType.Float)",
    "S2 = fd.define_scalar(0.0, dtype=DataType.Float)",
    "T2 = fd.ops.pad(T0, pad_widths=[1, 0, 0, 1], value=S2)",
    "S3 = fd.define_scalar(0.5, dtype=DataType.Double)",
    "T3 = fd.ops.full(shape=[3, 4], fill_value=S3, dtype=DataType.Float)",
    "T4 = fd.ops.cat([T2, T3], dim=0)",
    "T5 = fd.ops.broadcast_in_dim(T1, shape=[2, 3], broadcast_dims=[1])",
    "T6 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)",
    "T7 = fd.ops.reshape(T5, new_shape=[6])",
    "T8 = fd.ops.add(T6, T7)",
    "fd.add_output(T8)",
]
CREATION_INPUTS = ["torch.testing.make_tensor((2, 3), dtype=torch.float32, device='cuda:0'),"]

SEED_INPUT = torch.randn(2, 4, 24)
SEED_INPUTS = ["torch.testing.make_tensor((2, 4, 24), dtype=torch.float32, device='cuda:0'),"]

# (id, definition in any spelling, inputs, printed body, printed inputs, the printed calls replayed)
CASES = [
    ("seed-old-spelling", seed_old_spelling, [SEED_INPUT], SEED_LINES, SEED_INPUTS, seed_as_printed),
    ("strided-direct-style", strided_direct_style, [STRIDED, INTS, 0.5], STRIDED_LINES, STRIDED_INPUTS,
     strided_as_printed),
    ("creation-legacy", creation, [torch.randn(2, 3)], CREATION_LINES, CREATION_INPUTS, creation_as_printed),
]  # fmt: skip
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize(("define", "inputs", "lines", "printed_inputs"), [c[1:5] for c in CASES], ids=IDS)
def test_print_uses_the_modern_spelling(define, inputs, lines, printed_inputs):
    fusion = record(define).fusion(inputs)
    scalars = {
        name: v for name, v in zip(fusion.inputs, inputs, strict=True) if not isinstance(v, torch.Tensor)
    }
    text = print_fusion(fusion, scalar_values=scalars)
    assert body(text) == lines
    assert inputs_block(text) == printed_inputs


@pytest.mark.parametrize(("define", "inputs", "mirror"), [(c[1], c[2], c[5]) for c in CASES], ids=IDS)
def test_replaying_the_print_gives_an_equal_fusion(define, inputs, mirror):
    fusion = record(define).fusion(inputs)
    replayed = record(mirror).fusion(inputs)
    assert replayed == fusion
    assert [v.strides for v in replayed.values] == [v.strides for v in fusion.values]
    assert print_fusion(replayed) == print_fusion(fusion)


def test_contiguous_static_print_replays_without_inputs():
    assert record(seed_as_printed).fusion() == record(seed_old_spelling).fusion([SEED_INPUT])


def test_print_is_a_thunder_style_script():
    text = print_fusion(record(seed_old_spelling).fusion([SEED_INPUT]), device="cpu")
    expected = "\n".join(
        [
            "import torch",
            "from nvfuser import FusionDefinition, DataType",
            "",
            "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :",
            *("    " + line for line in SEED_LINES),
            "",
            "with FusionDefinition() as fd:",
            "    nvfuser_fusion_id0(fd)",
            "",
            "inputs = [",
            "    torch.testing.make_tensor((2, 4, 24), dtype=torch.float32, device='cpu'),",
            "]",
            "fd.execute(inputs)",
            "",
        ]
    )
    assert text == expected
    assert print_fusion(record(seed_old_spelling).fusion([SEED_INPUT])) == text.replace("'cpu'", "'cuda:0'")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (float("nan"), 'float("nan")'),
        (-float("inf"), 'float("-inf")'),
        (0.1, "0.1"),
        (complex(1.0, -2.0), "complex(1.0, -2.0)"),
        ((1, (True, None)), "[1, [True, None]]"),
        (DataType.BFloat16, "DataType.BFloat16"),
    ],
    ids=["nan", "-inf", "float", "complex", "nested", "dtype"],
)
def test_literals(value, text):
    assert literal(value) == text


# (shape, strides, contiguity in memory order, stride_order)
LAYOUTS = [
    ((2, 3, 4), (12, 4, 1), [True, True, True], [2, 1, 0]),
    ((2, 3, 4), (1, 2, 6), [True, True, True], [0, 1, 2]),
    ((3, 2, 4), (24, 1, 6), [True, False, True], [2, 0, 1]),
    ((4, 1, 8), (8, 8, 1), [True, None, True], [2, 1, 0]),
    ((5,), (2,), [False], [0]),
    ((3, 4), (0, 1), [True, None], [0, 1]),
]


@pytest.mark.parametrize(
    ("shape", "strides", "contiguity", "order"), LAYOUTS, ids=[str(s) for _, s, *_ in LAYOUTS]
)
def test_layout_of_describes_strides_like_nvfuser(shape, strides, contiguity, order):
    assert layout_of(shape, strides) == (contiguity, order)
    if all(contiguity_entry is not False for contiguity_entry in contiguity) and 0 not in strides:
        assert strides_for(shape, order) == strides
