"""Kernels that read tensors with no elements: every output element comes from pad values, other inputs
or an empty sum, and no kernel reads past an empty tensor (its address is null; Triton's interpreter
crashed the process on such a load)."""

from __future__ import annotations

import importlib

import pytest

from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.tolerance import assert_close
from hfuse.tools.triton_ir import triton_irs

CASES = {
    "pad of an expanded empty tensor": (
        """
inputs = [torch.randn((0,), dtype=torch.float64, device="cuda").as_strided((2, 0, 3), (0, 0, 0))]
with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    fd.add_output(fd.ops.pad(T0, [0, 0, 1, 1, 1, 0], fd.define_scalar(-3.5, dtype=DataType.Double)))
""",
        (3, 2, 3),
    ),
    "cat with an empty part": (
        """
inputs = [torch.randn(2, 3, device="cuda"), torch.randn(2, 0, device="cuda")]
with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    fd.add_output(fd.ops.exp(fd.ops.cat([T0, T1], dim=1)))
""",
        (2, 3),
    ),
    "sum over an empty dim": (
        """
inputs = [torch.randn(4, 0, dtype=torch.bfloat16, device="cuda")]
with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    fd.add_output(fd.ops.sum(fd.ops.cast(T0, dtype=DataType.Float), dims=[1]))
""",
        (4,),
    ),
    "an empty tensor beside a full one": (
        """
inputs = [torch.randn(0, 3, device="cuda"), torch.randn(5, 3, device="cuda")]
with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    fd.add_output(fd.ops.sum(T0, dims=[0]))
    fd.add_output(fd.ops.mul(T1, T1))
""",
        (3,),
    ),
}


@pytest.mark.parametrize("text, shape", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("alias_outputs", [True, False], ids=["views", "contiguous"])
def test_kernels_reading_empty_tensors_match_the_reference(text, shape, alias_outputs, device):
    script = load(text, device=device)
    outputs, _, _ = execute(script.fusion, script.inputs, alias_outputs=alias_outputs)
    assert tuple(outputs[0].shape) == shape
    for actual, expected in zip(outputs, evaluate(script.fusion, script.inputs), strict=True):
        assert_close(actual, expected)


def test_kernels_reading_empty_tensors_compile_for_sm_90():
    """The interpreter compiles nothing: the same kernels, compiled for an H200 as its first launch would."""
    if "nvidia" not in importlib.import_module("triton.backends").backends:
        pytest.skip("this Triton has no NVIDIA backend")
    compileds = [
        compile_fusion(load(text, device="cpu").fusion, alias_outputs=False) for text, _ in CASES.values()
    ]
    for name, found in zip(CASES, triton_irs(compileds), strict=True):
        assert found and all(".target sm_90" in launch.irs["ptx"] for launch in found), name
