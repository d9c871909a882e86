"""A Fusion prints as a definition script, and loading that script gives an equal Fusion."""

from pathlib import Path

import pytest

from hfuse import load
from hfuse.printer import print_fusion

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "assets" / "examples").glob("*.py"))
EXTENDED = sorted((Path(__file__).resolve().parent.parent / "assets" / "examples" / "extended").glob("*.py"))

HEADER = "import torch\nfrom nvfuser import FusionDefinition, DataType\n\nwith FusionDefinition() as fd:\n"

# (id, definition body, inputs list)
SCRIPTS = [
    (
        "strided-input-and-symbolic-scalar",
        """\
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, stride_order=[0, 1])
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    T2 = fd.ops.mul(T0, S1)
    T3 = fd.ops.clamp(T2, -1.5, float("inf"))
    fd.add_output(T3)
""",
        "[torch.randn(12).as_strided((3, 4), (1, 3)), 2.5]",
    ),
    (
        "constants-of-every-kind",
        """\
    T0 = fd.define_tensor(shape=[2, 3], contiguity=True, dtype=DataType.Int)
    S1 = fd.define_scalar(3, dtype=DataType.Int)
    S2 = fd.define_scalar(True, dtype=DataType.Bool)
    S3 = fd.define_scalar(0.25)
    T4 = fd.ops.add(T0, S1)
    T5 = fd.ops.where(fd.ops.gt(T4, 4), S2, False)
    T6 = fd.ops.cast(T5, dtype=DataType.Float)
    T7 = fd.ops.mul(T6, S3)
    fd.add_output(T7)
""",
        "[torch.randint(0, 10, (2, 3))]",
    ),
    (
        "reductions-and-views",
        """\
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[2], keepdim=True, dtype=DataType.Float)
    T3, T4 = fd.ops.var_mean(T1, dims=[0, 2], correction=1, keepdim=False)
    T5 = fd.ops.broadcast_in_dim(T4, shape=[2, 3, 4], broadcast_dims=[1])
    T6 = fd.ops.sub(T1, T5)
    T7 = fd.ops.permute(T6, dims=[2, 0, 1])
    T8 = fd.ops.reshape(T7, new_shape=[4, 6])
    T9 = fd.ops.broadcast(T3, is_broadcast_dim=[True, False])
    T10 = fd.ops.expand(T9, shape=[4, 3])
    T11 = fd.ops.squeeze(T2, dims=[2])
    fd.add_output(T8)
    fd.add_output(T10)
    fd.add_output(T11)
""",
        "[torch.randn(2, 3, 4, dtype=torch.float16)]",
    ),
    (
        "resize-ops",
        """\
    T0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.slice(T0, start_indices=[0, 2], end_indices=[4, 6], strides=[1, 1])
    T2 = fd.ops.pad(T1, [1, 1, 0, 0], 0.0)
    T3 = fd.ops.cat([T2, T0], dim=1)
    T4 = fd.ops.full(shape=[4, 14], fill_value=2.0, dtype=DataType.Float)
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.triu(T5, diagonal=1)
    fd.add_output(T6)
""",
        "[torch.randn(4, 8)]",
    ),
    (
        "outputs-with-layout-and-alias",
        """\
    T0 = fd.define_tensor(shape=[3, 5], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[3, 5], contiguity=[True, True], dtype=DataType.Float)
    T2 = fd.ops.exp(T0)
    T3 = fd.ops.add(T1, T2)
    fd.add_output(T2, stride_order=[0, 1])
    fd.add_output(T3, alias_input=T1)
""",
        "[torch.randn(3, 5), torch.randn(3, 5)]",
    ),
    (
        "operators-on-handles",
        """\
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = (T0 * 2 + T1) / 3 - -T1
    T3 = T2 > 0.5
    fd.add_output(T2)
    fd.add_output(T3)
""",
        "[torch.rand(6), torch.rand(1, 6)]",
    ),
    (
        "nan-and-complex-constants",
        """\
    T0 = fd.define_tensor(shape=[2, 3], contiguity=True, dtype=DataType.Float)
    T1 = fd.ops.add(T0, float("nan"))
    T2 = fd.ops.mul(T1, complex(1, -2.5))
    T3 = fd.ops.sub(T2, 1 + 2j)
    fd.add_output(T3)
""",
        "[torch.randn(2, 3)]",
    ),
    (
        "indexing-and-matmul",
        """\
    T0 = fd.define_tensor(shape=[5, 4], contiguity=True, dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[3], contiguity=True, dtype=DataType.Int)
    T2 = fd.define_tensor(shape=[4, 2], contiguity=True, dtype=DataType.Float)
    T3 = fd.ops.index_select(T0, T1, dim=0)
    T4 = fd.ops.matmul(T3, T2)
    T5 = fd.ops.cumsum(T4, dim=1)
    fd.add_output(T5)
""",
        "[torch.randn(5, 4), torch.randint(0, 5, (3,)), torch.randn(4, 2)]",
    ),
    (
        "attention-with-bias-mask-and-its-backward",
        """\
    T0 = fd.define_tensor(shape=[1, 2, 3, 8], contiguity=True, dtype=DataType.Half)
    T1 = fd.define_tensor(shape=[1, 2, 4, 8], contiguity=True, dtype=DataType.Half)
    T2 = fd.define_tensor(shape=[1, 1, 3, 4], contiguity=True, dtype=DataType.Half)
    T3 = fd.define_tensor(shape=[1, 2, 3, 4], contiguity=True, dtype=DataType.Bool)
    S4 = fd.define_scalar(None, dtype=DataType.Bool)
    T5, T6, T7, T8 = fd.ops.sdpfa_fwd(T0, T1, T1, bias=T2, mask=T3, is_causal=S4, scale=0.25)
    T9, T10, T11 = fd.ops.sdpfa_bwd(T5, T0, T1, T1, T5, T6, 0.0, S4, T7, T8, None)
    fd.add_output(T9)
    fd.add_output(T10)
""",
        "[torch.randn(1, 2, 3, 8).half(), torch.randn(1, 2, 4, 8).half(), torch.randn(1, 1, 3, 4).half(), "
        "torch.rand(1, 2, 3, 4) > 0.5, True]",
    ),
]


def _roundtrip(text: str) -> None:
    fusion = load(text, device="cpu").fusion
    printed = print_fusion(fusion)
    reloaded = load(printed, device="cpu").fusion
    assert reloaded == fusion, f"printed:\n{printed}\nreloaded:\n{print_fusion(reloaded)}"
    assert print_fusion(reloaded) == printed


@pytest.mark.parametrize(("body", "inputs"), [s[1:] for s in SCRIPTS], ids=[s[0] for s in SCRIPTS])
def test_printed_fusions_load_back_equal(body, inputs):
    _roundtrip(f"{HEADER}{body}\ninputs = {inputs}\n")


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_round_trip(path):
    _roundtrip(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", EXTENDED, ids=[p.stem for p in EXTENDED])
def test_extended_examples_round_trip(path):
    _roundtrip(path.read_text(encoding="utf-8"))


def test_round_trip_compares_what_it_should():
    """Equality is not vacuous: a changed attribute makes the fusions differ."""
    _, body, inputs = SCRIPTS[3]
    fusion = load(f"{HEADER}{body}\ninputs = {inputs}\n", device="cpu").fusion
    changed = load(
        f"{HEADER}{body.replace('diagonal=1', 'diagonal=2')}\ninputs = {inputs}\n", device="cpu"
    ).fusion
    assert changed != fusion
