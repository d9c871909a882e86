"""Ops on complex values run in torch, each in a segment of its own that says why (kernels hold real
numbers only), while the real ops around them still fuse into kernels; the whole runs and matches."""

from __future__ import annotations

import torch

from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.segment.model import SchedulerKind
from hfuse.tolerance import assert_close

SCRIPT = """
with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    y = fd.ops.exp(fd.ops.mul(x, x))
    z = fd.ops.mul(fd.ops.cast(y, dtype=DataType.ComplexFloat), fd.define_constant(complex(3.0, 0.5)))
    r = fd.ops.real(z)
    fd.add_output(fd.ops.sum(fd.ops.add(r, x), dims=[1]))
    fd.add_output(z)
"""


def test_complex_ops_run_in_torch_and_the_real_ones_in_kernels(device):
    script = load(SCRIPT, device=device)
    compiled = compile_fusion(script.fusion, strategy="hfuse", alias_outputs=True)
    groups = compiled.segmentation.groups
    in_torch = [g for g in groups if g.kind is SchedulerKind.TORCH]
    assert {g.exprs[0].op.frontend_name for g in in_torch} == {"cast", "mul", "real"}
    assert all("ComplexFloat values, and kernels hold real numbers only" in g.note for g in in_torch)
    kernels = [g for g in groups if g.kind.launches_kernel]
    assert len(kernels) == 2  # exp(x * x) before the complex ops, add and sum after them
    x = torch.randn(4, 8, device=device)
    outputs, _, _ = execute(script.fusion, [x])
    for actual, expected in zip(outputs, evaluate(script.fusion, [x]), strict=True):
        assert_close(actual, expected)
