"""A validated plan's cached call, with each segment's step bound once and the values by position,
returns what the plan's full run returns on the same inputs: for kernels, views of inputs, torch
segments, constants and outputs written into inputs."""

from __future__ import annotations

import pytest
import torch

from hfuse import DataType, FusionDefinition
from hfuse.examples import get_example, list_examples
from hfuse.loader import load
from hfuse.runtime import executor as executor_module
from hfuse.runtime import prepare
from hfuse.runtime.segments import fast_allocation

pytestmark = pytest.mark.usefixtures("fresh_cache")


def _fresh(x):
    """New random values in the layout of a floating-point input (its strides, offset and storage kept)."""
    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point:
        return x
    storage = torch.randn(x.untyped_storage().nbytes() // x.element_size(), device=x.device).to(x.dtype)
    return storage.as_strided(x.size(), x.stride(), x.storage_offset())


def _must_not_run(*args, **kwargs):
    raise AssertionError("the full run ran")


def _lean_and_full(fd: FusionDefinition, inputs: list, views: bool, monkeypatch) -> tuple[list, list]:
    """The outputs of a cached call on fresh inputs and of the plan's full run on the same inputs."""
    for _ in range(2):  # compiles and validates, then makes the lean call
        fd.execute(inputs, alias_outputs=views)
    fresh = [_fresh(x) for x in inputs]
    full_inputs = [x.clone() if isinstance(x, torch.Tensor) else x for x in fresh]  # in-place outputs
    with monkeypatch.context() as patched:
        patched.setattr(executor_module.Plan, "run", _must_not_run)
        lean = fd.execute(fresh, alias_outputs=views)
    plan = prepare(fd.fusion(full_inputs), full_inputs, alias_outputs=views)
    full = plan.run(full_inputs)[0]
    for given, kept in zip(fresh, full_inputs, strict=True):  # what the two wrote into their inputs
        if isinstance(given, torch.Tensor):
            torch.testing.assert_close(given, kept, rtol=0, atol=0, equal_nan=True)
    return lean, full


@pytest.mark.parametrize("views", [True, False], ids=["views", "contiguous"])
@pytest.mark.parametrize("name", [e.name for e in list_examples()])
def test_a_cached_call_returns_what_the_full_run_returns(name, views, monkeypatch, device):
    script = load(get_example(name).text, device=device)
    lean, full = _lean_and_full(script.fd, list(script.inputs), views, monkeypatch)
    assert len(lean) == len(full)
    for a, b in zip(lean, full, strict=True):
        assert (a.shape, a.stride(), a.dtype) == (b.shape, b.stride(), b.dtype)
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)


def test_a_cached_call_runs_torch_segments_between_kernels_and_writes_into_inputs(monkeypatch, device):
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        s = fd.define_scalar(dtype=DataType.Double)
        running = fd.ops.cumsum(fd.ops.mul(fd.ops.exp(x), s), dim=1)  # torch computes cumsum
        fd.add_output(fd.ops.sum(fd.ops.mul(running, x), dims=[1]))
        fd.add_output(fd.ops.add(x, x), alias_input=x)
    inputs = [torch.randn(6, 8, device=device), 0.5]
    lean, full = _lean_and_full(fd, inputs, True, monkeypatch)
    kinds = [segment.group.kind.name for segment in prepare(fd.fusion(inputs), inputs).segments]
    assert "TORCH" in kinds and kinds.count("REDUCTION") + kinds.count("POINTWISE") >= 2, kinds
    torch.testing.assert_close(lean, full, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["softmax", "var_mean_layernorm", "cross_entropy", "qkv_split"])
def test_static_outputs_are_the_same_tensors_written_again_by_each_call(name, device):
    script = load(get_example(name).text, device=device)
    fd, inputs = script.fd, list(script.inputs)
    fd.execute(inputs, static_outputs=True)  # compiles and validates: fresh outputs
    kept = fd.execute(inputs, static_outputs=True)
    for _ in range(2):
        fresh = [_fresh(x) for x in inputs]
        again = fd.execute(fresh, static_outputs=True)
        expected = fd.execute(fresh)
        for out, before, want in zip(again, kept, expected, strict=True):
            if want._base is None:  # a kernel's output, not a view of an input
                assert out is before and want is not before
            torch.testing.assert_close(out, want, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize(
    "shape, strides", [((4, 6), (6, 1)), ((4, 6), (1, 4)), ((2, 0, 3), (0, 3, 1)), ((), ())]
)
def test_the_fast_allocation_makes_the_layout_asked_for(shape, strides, device):
    made = fast_allocation(torch.device(device))(shape, strides, torch.bfloat16)
    assert (tuple(made.shape), made.stride(), made.dtype) == (shape, strides, torch.bfloat16)
    assert made.device.type == device
