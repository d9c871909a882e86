"""Launching a plan's kernels after the first call: straight to the compiled kernel while Triton would
specialize the arguments as it did the first time, through Triton's own dispatch otherwise."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

import hfuse
from hfuse import DataType, FusionDefinition
from hfuse.builder import FusionBuilder
from hfuse.ir import Op
from hfuse.runtime import launcher as launcher_module
from hfuse.runtime.kernel_cache import load_kernel
from hfuse.runtime.launcher import KernelLauncher, _specialization, bound_c_launch

pytestmark = pytest.mark.usefixtures("fresh_cache")

N = 96  # a multiple of 16 elements, so that an offset view keeps the shape of an aligned tensor


def _scale_by_an_int() -> FusionDefinition:
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        n = fd.define_scalar(dtype=DataType.Int)
        fd.add_output(fd.ops.add(fd.ops.mul(x, n), x))
    return fd


def _offset_view(n: int, elements: int, device: str) -> torch.Tensor:
    """n floats that start `elements` floats (4 bytes each) past an aligned address."""
    return torch.randn(n + elements, device=device)[elements:]


@pytest.mark.parametrize("scalars", [(3, 1, 16, 17, 2**40, -(2**31) - 1, -1)], ids=["int-specializations"])
def test_cached_calls_stay_right_when_alignment_or_an_int_changes_what_triton_specializes(scalars, device):
    fd = _scale_by_an_int()
    tensors = [torch.randn(N, device=device), _offset_view(N, 1, device), _offset_view(N, 4, device)]
    for x in tensors * 2:  # the second round: every form has been launched once already
        for n in scalars:
            (out,) = fd.execute([x, n])
            torch.testing.assert_close(out, x * n + x, rtol=1e-5, atol=0)


def test_the_specialization_is_each_pointers_alignment_and_each_ints_kind():
    aligned = torch.zeros(8)
    passed, specialization = _specialization([aligned, aligned[1:], 1, 32, 33, 2**40, 2**63, 2.5, True])
    assert passed[0] == aligned.data_ptr() and passed[1] == aligned.data_ptr() + 4
    assert passed[2:] == [1, 32, 33, 2**40, 2**63, 2.5, True]
    assert specialization == (
        True,
        False,
        (True, False, True, True),
        (False, True, True, True),
        (False, False, True, True),
        (False, True, False, True),
        (False, True, False, False),
        float,
        bool,
    )
    assert _specialization([aligned, "text"])[1] == (), "an argument of another kind leaves Triton to decide"


class _Launcher36:
    """Stands for Triton 3.6's CudaLauncher: its Python call and the C function it wraps."""

    launch_cooperative_grid, launch_pdl = False, True
    global_scratch_size = profile_scratch_size = 0

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.launch = lambda *args: self.calls.append(args)

    def __call__(self, gridX, gridY, gridZ, stream, function, *args):  # noqa: N803 (Triton's names)
        raise AssertionError("the C function is called directly")


class _Compiled:
    function, packed_metadata = 1234, (4, 1, 0)

    def __init__(self, runner) -> None:
        self.run = runner
        self.runs: list[tuple] = []

    def __getitem__(self, grid):
        return lambda *args: self.runs.append((grid, args))


class _Hooks:
    def __init__(self, enter) -> None:
        self.launch_enter_hook, self.launch_exit_hook = enter, None


def _fake_cuda(monkeypatch, enter=None) -> _Hooks:
    import triton

    hooks = _Hooks(enter)
    monkeypatch.setattr(torch._C, "_cuda_getCurrentRawStream", lambda index: 777 + index, raising=False)
    monkeypatch.setattr(triton.knobs, "runtime", hooks)
    return hooks


class _Chain:
    def __init__(self, calls) -> None:
        self.calls = calls


def test_the_c_launch_gets_triton_3_6s_arguments_and_hooks_send_launches_through_triton(monkeypatch):
    hooks = _fake_cuda(monkeypatch, enter=_Chain([]))
    runner = _Launcher36()
    compiled = _Compiled(runner)
    launch = bound_c_launch(compiled, (7, 1, 1), torch.device("cuda", 1))
    launch(11, 22, 3.5)
    assert runner.calls == [
        (7, 1, 1, 778, 1234, False, True, None, None, (4, 1, 0), None, None, None, 11, 22, 3.5)
    ]
    hooks.launch_enter_hook.calls.append(print)  # a profiler adds its hook to Triton's chain
    launch(11, 22, 3.5)
    assert len(runner.calls) == 1 and compiled.runs == [((7, 1, 1), (11, 22, 3.5))]


def test_other_launchers_and_kernels_with_scratch_memory_keep_tritons_runner(monkeypatch):
    _fake_cuda(monkeypatch)
    cuda = torch.device("cuda", 0)
    with_scratch = _Launcher36()
    with_scratch.global_scratch_size = 64
    assert bound_c_launch(_Compiled(with_scratch), (1, 1, 1), cuda) is None

    class Launcher39(_Launcher36):  # Triton 3.9 names its launcher's arguments differently
        def __call__(self, gridX, gridY, gridZ, stream, function, kernel_metadata, *args):  # noqa: N803
            raise AssertionError

    assert bound_c_launch(_Compiled(Launcher39()), (1, 1, 1), cuda) is None
    assert launcher_module._calls_something(lambda metadata: None)
    assert not launcher_module._calls_something(None) and not launcher_module._calls_something(_Chain([]))


def test_the_lean_c_launch_takes_the_arguments_as_they_are_and_declines_under_a_hook(monkeypatch):
    hooks = _fake_cuda(monkeypatch, enter=_Chain([]))
    hooks.launch_exit_hook = _Chain([])
    own_calls: list[tuple] = []
    bound_with: list[bytes] = []

    def bound_launch(compiled, grid, expected=b""):
        bound_with.append(expected)
        return lambda stream, *args: own_calls.append((stream, *args)) or True

    monkeypatch.setattr(launcher_module, "bound_launch", bound_launch)
    x, out = torch.zeros(16), torch.zeros(16)
    module = SimpleNamespace(run=lambda *args: None)
    lean = launcher_module.lean_c_launch(
        _Compiled(_Launcher36()), (3, 1, 1), torch.device("cuda", 1), _specialization([x, out, 17])[1], module
    )
    assert bound_with == [b"aa" + bytes([0x40 | 0b1100])], "aligned, aligned, an int of 32 bits"
    assert lean([x, out, 17], 4242) and lean([x, out, 17], None)
    assert own_calls == [(4242, x, out, 17), (778, x, out, 17)], (
        "the stream given, else the device's current one"
    )
    hooks.launch_enter_hook.calls.append(print)  # a profiler's hook: Triton's runner must launch
    assert not lean([x, out, 17], 4242)
    hooks.launch_enter_hook.calls.clear()
    module.run = lambda *args: None  # run() replaced: the module's own launch must run
    assert not lean([x, out, 17], 4242) and len(own_calls) == 2


def _column_sums(rows: int, cols: int):
    """A column sum long enough to split: partials, then their sums (two launches, one scratch buffer)."""
    b = FusionBuilder()
    x = b.define_tensor([rows, cols], DataType.Float)
    (total,) = b.add(Op.SUM, [x], {"dims": [0], "keepdim": False, "dtype": DataType.Float})
    b.add_output(total)
    return b.build()


def test_a_modules_launch_table_launches_what_its_run_does(device):
    module = load_kernel(hfuse.compile(_column_sums(2048, 40)).kernels[0])
    assert [name for name, _, _ in module.LAUNCHES] == ["hfuse_reduction_g0_partials", "hfuse_reduction_g0"]
    x = torch.randn(2048, 40, device=device)
    by_run, by_table = (torch.full((40,), float("nan"), device=device) for _ in range(2))
    module.launch(x, by_run)
    scratch = [torch.full((n,), float("nan"), dtype=dtype, device=device) for n, dtype in module.SCRATCH]
    values = [x, by_table, *scratch]
    for name, grid, positions in module.LAUNCHES:
        getattr(module, name)[grid](*[values[i] for i in positions])
    # launched with Triton's default warps and options, not run()'s: the same sums in another order
    torch.testing.assert_close(by_table, by_run, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(by_run, x.double().sum(0).float(), rtol=1e-5, atol=1e-4)


def test_cached_calls_of_a_split_reduction_sum_each_calls_input(device):
    fd = FusionDefinition()
    with fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        fd.add_output(fd.ops.sum(x, dims=[0]))
    for _ in range(3):  # the second and third calls launch the compiled kernels directly on a GPU
        x = torch.randn(2048, 40, device=device)
        (total,) = fd.execute([x])
        torch.testing.assert_close(total, x.double().sum(0).float(), rtol=1e-5, atol=1e-4)


class _SplitModule(SimpleNamespace):
    """Stands for a generated module of two launches: its first launch returns both compiled kernels."""


def test_a_direct_launch_of_several_kernels_gives_each_its_grid_arguments_and_new_scratch():
    first, second = _Compiled(_Launcher36()), _Compiled(_Launcher36())
    module = _SplitModule(
        LAUNCHES=(("partials", (5, 1, 1), (0, 2, 3)), ("rest", (1, 1, 1), (2, 3, 1))),
        SCRATCH=((10, torch.float32), (4, torch.int64)),
        launch=lambda *args: (first, second),
        run=lambda *args: pytest.fail("run() is not called once the kernels are launched directly"),
    )
    made = []

    def allocate(shape, strides, dtype):
        made.append(torch.empty_strided(shape, strides, dtype=dtype))
        return made[-1]

    launcher = KernelLauncher(module, allocate)
    x, out = torch.zeros(16), torch.zeros(1)
    launcher.launch([x, out])  # through the module's checks
    assert not first.runs and not made
    launcher.launch([x, out])
    partials, counts = made
    assert (partials.shape, partials.dtype) == ((10,), torch.float32)
    assert (counts.shape, counts.dtype) == ((4,), torch.int64)
    pointers = x.data_ptr(), out.data_ptr(), partials.data_ptr(), counts.data_ptr()
    assert first.runs == [((5, 1, 1), (pointers[0], pointers[2], pointers[3]))]
    assert second.runs == [((1, 1, 1), (pointers[2], pointers[3], pointers[1]))]
