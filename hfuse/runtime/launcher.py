"""Launching one generated kernel module of a plan, with as little host work as each call allows.

The first call goes through the module's `launch()`, which checks every argument's dtype, shape and
strides against the kernel's. The plan's inputs and its own outputs keep those layouts, so later calls
skip the checks: they call the module's `run()`, or, on a GPU, the compiled kernels themselves (`direct`),
in the order and on the grids and arguments the module's `LAUNCHES` gives, with the scratch buffers of
its `SCRATCH` allocated for each call (a split reduction's partials).

Triton compiles a kernel for what it specializes on in the arguments: whether a pointer is 16-byte
aligned, whether an integer is 1, is divisible by 16 or fits 32 bits. The compiled kernel is launched
directly only while the arguments agree with the first launch's on all of that (`_specialization`);
otherwise `run()` lets Triton pick or compile the kernel that fits. A module that launches one kernel
on its own arguments checks them in hfuse's C launch function itself (`lean_c_launch`), which takes
the tensors as they are: a cached call does no per-argument work in Python.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import torch

from hfuse.runtime.cuda_launch import bound_launch
from hfuse.runtime.graph_replay import REPLAYED_SCRATCH_MAX_BYTES, replayed

DirectLaunch = Callable[..., object]  # the compiled kernel launched on (data pointers and scalars)
# (the module's arguments, the current stream or None) -> launched; False: the caller launches otherwise
LeanLaunch = Callable[[Sequence[Any], int | None], bool]
Allocate = Callable[[tuple[int, ...], tuple[int, ...], torch.dtype], torch.Tensor]  # (shape, strides, dtype)
Table = tuple[tuple[str, tuple[int, int, int], tuple[int, ...]], ...]  # LAUNCHES: (name, grid, positions)

INT32, INT64 = range(-(2**31), 2**31), range(-(2**63), 2**63)  # beyond int64, Triton passes uint64
# what hfuse reads of Triton 3.6's CudaLauncher to call its C function, or its own, in its place
LAUNCHER_FIELDS = (
    "launch",
    "launch_cooperative_grid",
    "launch_pdl",
    "global_scratch_size",
    "profile_scratch_size",
)


class KernelLauncher:
    def __init__(self, module: ModuleType, allocate: Allocate) -> None:
        """`allocate`: makes the scratch buffers of a direct launch, on the device the plan runs on."""
        self.module = module
        self.allocate = allocate
        self.generated_run = getattr(module, "run", None)
        self.checked = False
        self.direct: DirectLaunch | None = None
        self.specialization: tuple[Any, ...] = ()
        self.lean: LeanLaunch | None = None

    def __call__(self, args: Sequence[Any]) -> Callable[[], object]:
        """Launches the kernel on `args` and returns a function that launches it again on them, the way
        this launch did (the first through the module's checks)."""
        if not self.checked:
            self.launch(args)
            return lambda: self.module.launch(*args)
        self.launch(args)
        return lambda: self.launch(args)

    def launch(self, args: Sequence[Any], stream: int | None = None) -> None:
        """Launches the kernel on `args`: the first time through the module's checks. `stream`: the
        device's current stream as a number, where the caller has it (None: looked up when needed)."""
        lean = self.lean
        if lean is not None and lean(args, stream):
            return
        if not self.checked:
            launched = self.module.launch(*args)
            self.checked = True
            self._bind(launched, args)
            return
        passed = self._direct_arguments(args)
        if passed is None:
            self._run(*args)
        else:
            self.direct(*passed)

    @property
    def _run(self) -> Callable[..., object]:
        return getattr(self.module, "run", self.module.launch)

    def _direct_arguments(self, args: Sequence[Any]) -> list[Any] | None:
        """The arguments as the direct launch takes them, or None where it may not run them: no compiled
        kernel is bound, `run` was replaced, or Triton would specialize these arguments differently."""
        if self.direct is None or getattr(self.module, "run", None) is not self.generated_run:
            return None
        passed, specialization = _specialization(args)
        return passed if specialization == self.specialization else None

    def _bind(self, launched: object, args: Sequence[Any]) -> None:
        """Keeps the compiled kernels' launches when Triton returned them (it does not in the interpreter)
        and the module describes its launches."""
        specialization = _specialization(args)[1]
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), None)
        table: Table | None = getattr(self.module, "LAUNCHES", None)
        kernels = launched if isinstance(launched, tuple) else (launched,)
        if not specialization or device is None or table is None or len(kernels) != len(table):
            return
        if not all(hasattr(k, "function") and hasattr(k, "__getitem__") for k in kernels):
            return
        bound = [
            (bound_c_launch(kernel, grid, device) or _bound_runner(kernel, grid), positions)
            for kernel, (_, grid, positions) in zip(kernels, table, strict=True)
        ]
        names = " and ".join(name for name, _, _ in table)
        self.direct = _in_order(bound, self.module.SCRATCH, len(args), self.allocate, device, names)
        self.specialization = specialization
        if _launches_one_kernel_on_its_arguments(bound, self.module.SCRATCH, len(args)):
            self.lean = lean_c_launch(kernels[0], table[0][1], device, specialization, self.module)


def _in_order(
    bound: Sequence[tuple[DirectLaunch, tuple[int, ...]]],
    scratch: Sequence[tuple[int, torch.dtype]],
    arity: int,
    allocate: Allocate,
    device: torch.device,
    names: str,
) -> DirectLaunch:
    """One launch taking the module's arguments: the compiled kernel itself when the module launches one
    kernel on its arguments as given, else each kernel in turn on its own arguments, with new scratch
    buffers; several launches with small scratch buffers on a GPU are replayed as one CUDA graph while
    the arguments repeat (`graph_replay`; `names`, the kernels', for its warnings)."""
    if _launches_one_kernel_on_its_arguments(bound, scratch, arity):
        return bound[0][0]

    def launch(*passed: Any) -> None:
        buffers = [allocate((numel,), (1,), dtype) for numel, dtype in scratch]  # alive until all are queued
        values = [*passed, *(buffer.data_ptr() for buffer in buffers)]
        for kernel, positions in bound:
            kernel(*[values[i] for i in positions])

    scratch_bytes = sum(numel * dtype.itemsize for numel, dtype in scratch)
    if len(bound) > 1 and device.type == "cuda" and scratch_bytes <= REPLAYED_SCRATCH_MAX_BYTES:
        return replayed(launch, device, _hooks_quiet(), names)
    return launch


def _launches_one_kernel_on_its_arguments(
    bound: Sequence[tuple[DirectLaunch, tuple[int, ...]]], scratch: Sequence[Any], arity: int
) -> bool:
    return len(bound) == 1 and not scratch and bound[0][1] == tuple(range(arity))


def _hooks_quiet() -> Callable[[], bool]:
    """Whether Triton's launch hooks would call nothing now: a replay would hide its launches from a hook."""
    from triton import knobs

    hooks = knobs.runtime

    def quiet() -> bool:
        return not (_calls_something(hooks.launch_enter_hook) or _calls_something(hooks.launch_exit_hook))

    return quiet


def _specialization(args: Sequence[Any]) -> tuple[list[Any], tuple[Any, ...]]:
    """Each tensor as its data pointer (Triton's launcher reads a Python int as the address itself), and what
    Triton specializes a compiled kernel on in the arguments; an empty specialization when an argument is
    of a kind not described here (Triton's own dispatch then decides)."""
    passed: list[Any] = []
    specialization: list[Any] = []
    for arg in args:
        if isinstance(arg, torch.Tensor):
            address = arg.data_ptr()
            passed.append(address)
            specialization.append(address % 16 == 0)
        elif isinstance(arg, (bool, float)):
            passed.append(arg)
            specialization.append(type(arg))
        elif isinstance(arg, int):
            passed.append(arg)
            specialization.append((arg == 1, arg % 16 == 0, arg in INT32, arg in INT64))
        else:
            return passed, ()
    return passed, tuple(specialization)


def specialization_letters(specialization: tuple[Any, ...]) -> bytes:
    """A `_specialization` as the C launch function's `expected` spells it (see cuda_launch.c)."""
    letters = bytearray()
    for kind in specialization:
        if kind is True or kind is False:
            letters += b"a" if kind else b"u"
        elif kind is float or kind is bool:
            letters += b"f" if kind is float else b"b"
        else:
            one, sixteen, int32, int64 = kind
            letters.append(0x40 | one | sixteen << 1 | int32 << 2 | int64 << 3)
    return bytes(letters)


def _bound_runner(compiled: Any, grid: tuple[int, int, int]) -> DirectLaunch:
    """Triton's own launch of a compiled kernel on a fixed grid; it takes data pointers as tensors."""
    return compiled[grid]


def bound_c_launch(compiled: Any, grid: tuple[int, int, int], device: torch.device) -> DirectLaunch | None:
    """The compiled kernel's launch with the grid, the kernel's handle and metadata bound, for a Triton
    whose launcher has the layout written here (Triton 3.6's `CudaLauncher`) and a kernel that needs no
    scratch memory; None otherwise. It launches through hfuse's own C function (`cuda_launch`) where that
    takes the kernel's parameters and this thread has a CUDA context, else through Triton's C launch
    function. Skipped per call: Triton's runner closure, its launch metadata, its current-device query,
    its launcher's Python wrapper and two calls of empty hook chains. While a launch hook is set (a
    profiler's), Triton's runner launches instead, so that the hook sees every launch as Triton reports
    it."""
    runner = _triton_c_launcher(compiled, device)
    if runner is None:
        return None
    hooks, chain = _launch_hooks()
    c_launch = runner.launch
    fallback = _bound_runner(compiled, grid)
    own = bound_launch(compiled, grid)
    x, y, z = grid
    function, metadata = compiled.function, compiled.packed_metadata
    cooperative, pdl = runner.launch_cooperative_grid, runner.launch_pdl
    stream_of, index = torch._C._cuda_getCurrentRawStream, device.index or 0

    def launch(*args: Any) -> None:
        enter, leave = hooks.launch_enter_hook, hooks.launch_exit_hook
        # Inline for the common case, Triton's empty chains: a function call costs as much as the test.
        if type(enter) is not chain or type(leave) is not chain or enter.calls or leave.calls:
            if _calls_something(enter) or _calls_something(leave):
                fallback(*args)
                return
        stream = stream_of(index)
        if own is not None and own(stream, *args):
            return
        c_launch(x, y, z, stream, function, cooperative, pdl, None, None, metadata, None, None, None, *args)

    return launch


def lean_c_launch(
    compiled: Any,
    grid: tuple[int, int, int],
    device: torch.device,
    specialization: tuple[Any, ...],
    module: ModuleType,
) -> LeanLaunch | None:
    """The compiled kernel's launch through hfuse's own C function on the arguments of the generated
    `module` that launches it alone, as they are (tensors, numbers): the C function takes each tensor's
    address and launches only while every argument is specialized as `specialization` (the first
    launch's) says. It launches nothing, and returns False, while a launch hook is set (`bound_c_launch`
    then launches), while the module's run() is replaced, or where `bound_c_launch` would launch through
    Triton's C function instead; None where the own launch does not apply to this kernel."""
    if _triton_c_launcher(compiled, device) is None:
        return None
    own = bound_launch(compiled, grid, specialization_letters(specialization))
    if own is None:
        return None
    hooks, chain = _launch_hooks()
    stream_of, index = torch._C._cuda_getCurrentRawStream, device.index or 0
    generated_run = getattr(module, "run", None)

    def lean(args: Sequence[Any], stream: int | None) -> bool:
        enter, leave = hooks.launch_enter_hook, hooks.launch_exit_hook
        if type(enter) is not chain or type(leave) is not chain or enter.calls or leave.calls:
            return False
        if getattr(module, "run", None) is not generated_run:
            return False
        return own(stream_of(index) if stream is None else stream, *args)

    return lean


def _triton_c_launcher(compiled: Any, device: torch.device) -> Any | None:
    """The compiled kernel's Triton 3.6 launcher where hfuse may call its C function: one of the layout
    written here, for a kernel that needs no scratch memory, on a CUDA device; else None."""
    runner = getattr(compiled, "run", None)
    if not all(hasattr(runner, f) for f in LAUNCHER_FIELDS) or not _takes_grid_then_args(runner):
        return None
    if runner.global_scratch_size or runner.profile_scratch_size or device.type != "cuda":
        return None
    return runner


def _launch_hooks() -> tuple[Any, type | None]:
    """Triton's runtime knobs, which hold the launch hooks, and the type of its default hook (an empty
    chain of hooks), or None where its default is not such a chain."""
    from triton import knobs

    hooks = knobs.runtime
    default = hooks.launch_enter_hook
    return hooks, type(default) if isinstance(getattr(default, "calls", None), list) else None


def _calls_something(hook: Any) -> bool:
    """Whether a launch hook would call anything: Triton's default is an empty chain of hooks (`calls`)."""
    if hook is None:
        return False
    calls = getattr(hook, "calls", None)
    return calls is None or bool(calls)


def _takes_grid_then_args(runner: Any) -> bool:
    """Whether the launcher's Python call is Triton 3.6's `(gridX, gridY, gridZ, stream, function, *args)`,
    which passes its C function the cooperative and PDL flags and the two scratch buffers before `args`."""
    try:
        parameters = list(inspect.signature(type(runner).__call__).parameters)
    except (TypeError, ValueError):
        return False
    return parameters == ["self", "gridX", "gridY", "gridZ", "stream", "function", "args"]
