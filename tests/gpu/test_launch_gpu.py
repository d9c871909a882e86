"""On a CUDA device: a validated plan's kernels launch through Triton's C launch function, and a launch
hook (a profiler's) still sees every launch."""

from __future__ import annotations

import importlib

import pytest
import torch

from hfuse import DataType, FusionDefinition
from hfuse.runtime import launcher as launcher_module

# Triton only after hfuse.runtime, which puts it in interpreter mode where there is no GPU
triton = importlib.import_module("triton")

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]


def _softmax() -> FusionDefinition:
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        e = fd.ops.exp(fd.ops.sub(x, fd.ops.broadcast_in_dim(fd.ops.max(x, dims=[1]), [64, 256], [0])))
        fd.add_output(fd.ops.div(e, fd.ops.broadcast_in_dim(fd.ops.sum(e, dims=[1]), [64, 256], [0])))
    return fd


def test_validated_calls_launch_through_tritons_c_function_on_triton_3_6(monkeypatch):
    if not triton.__version__.startswith("3.6"):
        pytest.skip(f"the C launch is written for Triton 3.6's launcher; this is {triton.__version__}")
    bound = []
    real = launcher_module._bound_c_launch
    monkeypatch.setattr(launcher_module, "_bound_c_launch", lambda *a: bound.append(real(*a)) or bound[-1])
    fd, x = _softmax(), torch.randn(64, 256, device="cuda")
    for _ in range(3):
        (out,) = fd.execute([x])
        torch.testing.assert_close(out, torch.softmax(x, 1))
    assert len(bound) == 1 and bound[0] is not None


def test_a_launch_hook_sees_each_launch_of_a_validated_call():
    fd, x = _softmax(), torch.randn(64, 256, device="cuda")
    fd.execute([x])
    seen = []
    hook = seen.append
    triton.knobs.runtime.launch_enter_hook.add(hook)
    try:
        for _ in range(3):
            (out,) = fd.execute([x])
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(hook)
    torch.testing.assert_close(out, torch.softmax(x, 1))
    assert len(seen) == 3


def test_a_static_call_is_captured_in_a_cuda_graph_and_replays_on_new_values():
    """With static outputs a validated call allocates nothing and launches on the current stream, so a
    CUDA graph can hold it: a replay computes the inputs' new values into the same outputs."""
    fd, x = _softmax(), torch.randn(64, 256, device="cuda")
    for _ in range(2):  # validated, then its static outputs allocated
        fd.execute([x], static_outputs=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        (out,) = fd.execute([x], static_outputs=True)
    for _ in range(2):
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.testing.assert_close(out, torch.softmax(x, 1))


def test_a_captured_call_takes_no_buffer_of_the_output_pool():
    fd, x = _softmax(), torch.randn(64, 256, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):  # validated, then the pool keeps this stream's buffer
            fd.execute([x])
        pooled = fd.execute([x])[0].data_ptr()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        (captured,) = fd.execute([x])
    assert captured.data_ptr() != pooled, "a replay would write the buffer the pool hands to later calls"
    x.copy_(torch.randn_like(x))
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(captured, torch.softmax(x, 1))
