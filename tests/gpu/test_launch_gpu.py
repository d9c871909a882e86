"""On a CUDA device: a validated plan's kernels launch through hfuse's own C launch function or Triton's,
and a launch hook (a profiler's) still sees every launch."""

from __future__ import annotations

import importlib
import threading

import pytest
import torch

from hfuse import DataType, FusionDefinition
from hfuse.runtime import graph_replay
from hfuse.runtime import launcher as launcher_module
from hfuse.service.measure import cuda_kernel_count

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
    real = launcher_module.bound_c_launch
    monkeypatch.setattr(launcher_module, "bound_c_launch", lambda *a: bound.append(real(*a)) or bound[-1])
    fd, x = _softmax(), torch.randn(64, 256, device="cuda")
    for _ in range(3):
        (out,) = fd.execute([x])
        torch.testing.assert_close(out, torch.softmax(x, 1))
    assert len(bound) == 1 and bound[0] is not None


def _scaled_column_sums() -> FusionDefinition:
    """Scalar parameters (a float and an int) and, at [4096, 512], a split reduction of two launches."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
        scale = fd.define_scalar(dtype=DataType.Double)
        shift = fd.define_scalar(dtype=DataType.Int)
        y = fd.ops.add(fd.ops.mul(fd.ops.cast(x, DataType.Float), scale), shift)
        fd.add_output(fd.ops.sum(y, dims=[0]))
        fd.add_output(fd.ops.cast(y, DataType.BFloat16))
    return fd


def _expected(x: torch.Tensor, scale: float, shift: int) -> list[torch.Tensor]:
    y = x.float() * scale + shift
    return [y.sum(0), y.to(torch.bfloat16)]


def test_validated_calls_go_through_hfuses_own_launch_with_scalar_parameters(monkeypatch):
    if not triton.__version__.startswith("3.6"):
        pytest.skip(f"the C launch is written for Triton 3.6's launcher; this is {triton.__version__}")
    launched: list[bool] = []
    real = launcher_module.bound_launch

    def counted(compiled, grid, *expected):
        own = real(compiled, grid, *expected)
        assert own is not None, f"no own launch for a kernel of signature {compiled.src.signature}"
        return lambda *args: launched.append(own(*args)) or launched[-1]

    monkeypatch.setattr(launcher_module, "bound_launch", counted)
    fd = _scaled_column_sums()
    for scale, shift in ((0.5, 3), (-1.25, 7), (2.0, -5)):
        x = torch.randn(4096, 512, device="cuda", dtype=torch.bfloat16)
        for out, want in zip(fd.execute([x, scale, shift]), _expected(x, scale, shift), strict=True):
            torch.testing.assert_close(out, want, rtol=1e-2, atol=1e-1)
    assert launched and all(launched), "each validated call's launches went through the own launch"


def _scaled_shifted() -> FusionDefinition:
    """One pointwise kernel taking a float and an int scalar."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        scale = fd.define_scalar(dtype=DataType.Double)
        shift = fd.define_scalar(dtype=DataType.Int)
        fd.add_output(fd.ops.add(fd.ops.mul(x, scale), shift))
    return fd


def _counted_lean_launches(monkeypatch) -> list[bool]:
    """What each lean launch of a one-kernel module returned (True: launched by hfuse's C function)."""
    if not triton.__version__.startswith("3.6"):
        pytest.skip(f"the C launch is written for Triton 3.6's launcher; this is {triton.__version__}")
    outcomes: list[bool] = []
    real = launcher_module.lean_c_launch

    def counted(*args):
        lean = real(*args)
        assert lean is not None, "a one-kernel module of this Triton launches through the lean launch"
        return lambda launched_on, stream: outcomes.append(lean(launched_on, stream)) or outcomes[-1]

    monkeypatch.setattr(launcher_module, "lean_c_launch", counted)
    return outcomes


def test_one_kernel_calls_hand_their_tensors_to_the_c_launch_while_specialized_alike(monkeypatch):
    """Inputs of the plan's layout at an address off 16 bytes, or an int of another kind, are not what
    the compiled kernel was specialized for: the C launch declines them and Triton picks the kernel."""
    outcomes = _counted_lean_launches(monkeypatch)
    fd, base = _softmax(), torch.randn(64 * 256 + 1, device="cuda")
    aligned, unaligned = base[:-1].view(64, 256), base[1:].view(64, 256)
    for x in (aligned, aligned, aligned, unaligned, unaligned, aligned):
        (out,) = fd.execute([x])
        torch.testing.assert_close(out, torch.softmax(x, 1))
    *launched, declined, declined_again, again = outcomes  # the first call may launch again as it validates
    assert len(launched) >= 2 and all(launched) and again, outcomes
    assert not declined and not declined_again, "an address off 16 bytes: Triton picks the kernel"
    outcomes.clear()
    fd, x = _scaled_shifted(), torch.randn(64, 96, device="cuda")
    for scale, shift in ((0.5, 3), (0.5, 3), (-1.25, 7), (2.0, 16), (3.0, 2**40), (1.5, 5)):
        (out,) = fd.execute([x, scale, shift])
        torch.testing.assert_close(out, x * scale + shift)
    assert outcomes[0] is True and outcomes[-1] is True, outcomes
    assert False in outcomes, "a multiple of 16, or an int past 32 bits, is specialized otherwise"


def test_cached_calls_from_a_new_thread_compute_the_outputs():
    """A thread started after validation may have no current CUDA context: its first launch goes through
    Triton's C launch function (which sets one), the later ones through hfuse's own."""
    fd, x = _scaled_column_sums(), torch.randn(4096, 512, device="cuda", dtype=torch.bfloat16)
    fd.execute([x, 0.5, 3])  # validated here
    results: list[object] = []

    def calls() -> None:
        try:
            results.extend(fd.execute([x, 0.5, 3]) for _ in range(3))
        except Exception as err:  # noqa: BLE001 - reported below, in the test's thread
            results.append(err)

    thread = threading.Thread(target=calls)
    thread.start()
    thread.join()
    assert len(results) == 3, results
    for outputs in results:
        for out, want in zip(outputs, _expected(x, 0.5, 3), strict=True):
            torch.testing.assert_close(out, want, rtol=1e-2, atol=1e-1)


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


def _column_sum() -> FusionDefinition:
    """At [2048, 40]: a split reduction, partials then their sums (two launches, a scratch buffer)."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        fd.add_output(fd.ops.sum(x, dims=[0]))
    return fd


def _column_sums_checked(fd: FusionDefinition, x: torch.Tensor, **execute) -> torch.Tensor:
    (total,) = fd.execute([x], **execute)
    torch.testing.assert_close(total, x.double().sum(0).float(), rtol=1e-5, atol=1e-4)
    return total


def test_a_split_reduction_on_its_last_arguments_is_replayed_as_one_graph_reading_new_values(monkeypatch):
    captures, replays = [], []
    capture, replay = graph_replay._Graph.capture, torch.cuda.CUDAGraph.replay
    monkeypatch.setattr(graph_replay._Graph, "capture", lambda g, a: captures.append(a) or capture(g, a))
    monkeypatch.setattr(torch.cuda.CUDAGraph, "replay", lambda g: replays.append(g) or replay(g))
    fd, x = _column_sum(), torch.randn(2048, 40, device="cuda")
    for _ in range(6):
        x.copy_(torch.randn_like(x))  # the same address with new values: a replay reads them
        _column_sums_checked(fd, x)  # its output dropped: the next call writes the same buffer
    assert len(captures) == 1 and len(replays) >= 2, "validated, launched, launched and captured, replayed"
    replayed = len(replays)
    _column_sums_checked(fd, torch.randn(2048, 40, device="cuda"))  # other arguments: launched
    assert len(replays) == replayed


@pytest.mark.filterwarnings("ignore:Warning. Profiler clears events:UserWarning")
def test_the_profiler_and_a_launch_hook_see_both_kernels_of_a_replayed_call():
    fd, x = _column_sum(), torch.randn(2048, 40, device="cuda")
    for _ in range(4):
        _column_sums_checked(fd, x)
    assert cuda_kernel_count(lambda: fd.execute([x])) == 2
    seen = []
    hook = seen.append
    triton.knobs.runtime.launch_enter_hook.add(hook)
    try:
        for _ in range(2):
            _column_sums_checked(fd, x)
    finally:
        triton.knobs.runtime.launch_enter_hook.remove(hook)
    assert len(seen) == 4


@pytest.mark.parametrize(
    ("make", "shape", "reference"),
    [
        (_softmax, (64, 256), lambda x: torch.softmax(x, 1)),
        (_column_sum, (2048, 40), lambda x: x.double().sum(0).float()),
    ],
    ids=["softmax", "split-reduction"],
)
def test_a_static_call_is_captured_in_a_cuda_graph_and_replays_on_new_values(make, shape, reference):
    """With static outputs a validated call allocates nothing and launches on the current stream, so a
    CUDA graph can hold it: a replay computes the inputs' new values into the same outputs. A split
    reduction's launches go into the caller's graph, not its own."""
    fd, x = make(), torch.randn(*shape, device="cuda")
    for _ in range(4):  # validated, static outputs allocated; a split reduction has captured its own graph
        fd.execute([x], static_outputs=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        (out,) = fd.execute([x], static_outputs=True)
    for _ in range(2):
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.testing.assert_close(out, reference(x), rtol=1e-5, atol=1e-4)
