"""A plan's segments, ready to run: one per group of the segmentation. A kernel segment allocates its
outputs and launches its generated module, a torch segment evaluates its exprs with the reference, an
alias segment makes strided views of inputs, and the inductor backend's one segment calls torch.compile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import torch

from hfuse.backends import INDUCTOR
from hfuse.codegen.model import KernelSource
from hfuse.dtypes import DataType
from hfuse.errors import KernelError
from hfuse.export import segment_fusion
from hfuse.ir import Fusion, Value
from hfuse.ops import Computed, op_def
from hfuse.pipeline import Compiled
from hfuse.reference import evaluate
from hfuse.runtime import inductor
from hfuse.runtime.device import run_device
from hfuse.runtime.kernel_cache import load_kernel
from hfuse.runtime.launcher import Allocate, KernelLauncher
from hfuse.runtime.memory import out_of_memory_detail
from hfuse.runtime.output_pool import PooledBuffer, pooled
from hfuse.runtime.parallel_compile import DryLaunch, jit_functions, never_compiled
from hfuse.segment.model import Group, SchedulerKind

T = TypeVar("T")
Env = dict[str, Any]  # value name -> tensor or Python scalar
Rerun = Callable[[], object]  # the segment's device work again, with the same arguments (for timing)


# A validated call's work of one segment, on the call's values by position (the plan's inputs, its
# constants, then every segment's outputs in order), to which it appends its outputs; and the current
# stream as `output_pool.current_stream` gives it (the call asks once, for all its segments).
Step = Callable[[list[Any], int | None], None]
# (name -> position, poison, static): adds its outputs' positions. `static`: a kernel writes the same
# buffers, allocated here, on every call (see `Plan.call`).
Bind = Callable[[dict[str, int], bool, bool], Step]


@dataclass(frozen=True, slots=True)
class Segment:
    """One group, ready to run: `run(env, poison)` reads its inputs from env, adds its outputs and returns
    its device work again for timing; `bind` makes the `Step` a validated call runs, once per plan;
    `dry(env)` adds stand-ins for its outputs and returns its kernel's launch on stand-in arguments,
    which only compiles (None when there is nothing to compile; see `parallel_compile`)."""

    group: Group
    run: Callable[[Env, bool], Rerun | None]
    kernel_name: str
    bind: Bind
    dry: Callable[[Env], DryLaunch | None]


def make_segment(compiled: Compiled, group: Group, in_place: dict[str, str] | None = None) -> Segment:
    """`in_place`: the outputs (by name) a validated run's kernel writes straight into an input, and that
    input's name (`writable_in_place`)."""
    if group.kind is SchedulerKind.ALIAS:
        return _alias_segment(compiled, group)
    if group.kind is SchedulerKind.TORCH:
        return torch_segment(compiled.scheduled, group)
    return _kernel_segment(compiled, group, in_place or {})


def writable_in_place(compiled: Compiled) -> dict[str, str]:
    """The outputs added with `alias_input` that a pointwise kernel may write straight into their input
    rather than into a new buffer copied there after the launch (an optimizer step then moves its bytes
    once): the input is read by that kernel alone, whose every op is elementwise, so each element is read
    by the program that writes it, at the position it writes, and the two have one layout."""
    fusion = compiled.scheduled
    groups = compiled.segmentation.groups
    found = {}
    for out in fusion.outputs:
        if out.alias_input is None:
            continue
        writers = [g for g in groups if out.name in g.outputs]
        readers = [g for g in groups if out.alias_input in g.inputs]
        if len(writers) != 1 or readers != writers or writers[0].kind is not SchedulerKind.POINTWISE:
            continue
        if not all(op_def(e.op).computed is Computed.BY_EMITTER for e in writers[0].exprs):
            continue
        written, read = fusion.value(out.name), fusion.value(out.alias_input)
        if (written.shape, written.strides, written.dtype) == (read.shape, read.strides, read.dtype):
            found[out.name] = out.alias_input
    return found


def _kernel_segment(compiled: Compiled, group: Group, in_place: dict[str, str]) -> Segment:
    """`run` (first runs, profiles) allocates every output, poisoned when asked; `bind`'s step (the
    validated call) writes the outputs of `in_place` straight into their inputs."""
    kernel = compiled.kernel_of(group)
    assert kernel is not None, f"group {group.id} launches a kernel but has no generated source"
    module = load_kernel(kernel)
    specs = tuple(OutputSpec.of(compiled.scheduled.value(name)) for name in kernel.outputs)
    inputs, outputs = tuple(kernel.inputs), tuple(kernel.outputs)
    into = tuple(in_place.get(name) for name in outputs)
    scalars = tuple(i for i, name in enumerate(inputs) if compiled.scheduled.value(name).is_scalar)
    device = run_device()
    launcher = KernelLauncher(module, fast_allocation(device))

    def arguments(
        env: Env, poison: bool, into: tuple[str | None, ...] = (None,) * len(specs)
    ) -> tuple[list[Any], list[torch.Tensor]]:
        buffers = [
            env[target] if target is not None else _allocate(spec, poison, device)
            for spec, target in zip(specs, into, strict=True)
        ]
        args = [env[name] for name in inputs]
        for i in scalars:
            args[i] = _launch_arg(args[i])
        args += buffers
        return args, buffers

    def run(env: Env, poison: bool) -> Rerun:
        args, buffers = arguments(env, poison)
        try:
            relaunch = launcher(args)
        except Exception as err:
            if out_of_memory_detail(err) is not None:
                raise  # not the kernel's fault: the run reports it as a LimitError
            raise _launch_error(kernel, err) from err
        env.update(zip(outputs, buffers, strict=True))
        return _reported(kernel, relaunch)

    def bind(positions: dict[str, int], poison: bool, static: bool) -> Step:
        reads = tuple(positions[name] for name in inputs)
        allocate = fast_allocation(device)
        sources = tuple(  # (a new buffer, None) or (None, the position of the input written in place)
            (_buffer_source(allocate, static, spec), None) if target is None else (None, positions[target])
            for spec, target in zip(specs, into, strict=True)
        )
        poisoned = tuple((i, spec.poison) for i, spec in enumerate(specs) if into[i] is None)
        positions.update((name, len(positions)) for name in outputs)

        def step(values: list[Any], stream: int | None) -> None:
            buffers = [values[at] if make is None else make(stream) for make, at in sources]
            if poison:
                for i, value in poisoned:
                    buffers[i].fill_(value)
            args = [values[i] for i in reads]
            for i in scalars:
                args[i] = _launch_arg(args[i])
            args += buffers
            try:
                launcher.launch(args, stream)
            except Exception as err:
                if out_of_memory_detail(err) is not None:
                    raise  # not the kernel's fault: the run reports it as a LimitError
                raise _launch_error(kernel, err) from err
            values += buffers

        return step

    def dry(env: Env) -> DryLaunch | None:
        values = [compiled.scheduled.value(name) for name in (*inputs, *outputs)]
        args = [_launch_arg(env[v.name]) if v.name in env else stand_in(v, device) for v in values]
        env.update((name, stand_in(compiled.scheduled.value(name), device)) for name in outputs)
        if not never_compiled(module):
            return None  # Triton holds a compiled kernel of the module: a launch of it would run
        return DryLaunch(lambda: module.run(*args), len(jit_functions(module)))

    return Segment(group, run, kernel.name, bind, dry)


def _buffer_source(allocate: Allocate, static: bool, spec: OutputSpec) -> PooledBuffer:
    """Where a validated call's buffer for an output comes from: with static outputs one buffer allocated
    here for every call, else the output pool."""
    if static:
        buffer = allocate(spec.shape, spec.strides, spec.dtype)
        return lambda stream: buffer
    return pooled(allocate, spec.shape, spec.strides, spec.dtype)


def _reported(kernel: KernelSource, launch: Callable[[], T]) -> Callable[[], T]:
    def reported() -> T:
        try:
            return launch()
        except Exception as err:
            if out_of_memory_detail(err) is not None:
                raise  # not the kernel's fault: the run reports it as a LimitError
            raise _launch_error(kernel, err) from err

    return reported


def _launch_error(kernel: KernelSource, err: Exception) -> KernelError:
    return KernelError(
        f"kernel {kernel.name} (segment {kernel.group_id}) failed to launch "
        f"({type(err).__name__}: {err}). This is a code generation bug: report it with the "
        "fusion definition; backend='eager' runs the fusion with torch"
    )


def torch_segment(fusion: Fusion, group: Group) -> Segment:
    """Torch evaluates the group; each output takes the layout the IR gave it, which the kernels reading
    it were generated for (torch may return a view: the real part of a complex tensor has twice its
    strides)."""
    part = segment_fusion(fusion, group)
    declared = [fusion.value(name) for name in part.output_names]

    def run(env: Env, poison: bool) -> Rerun:
        args = [env[name] for name in part.inputs]

        def rerun() -> list[torch.Tensor]:
            return [
                _in_layout(result, value)
                for result, value in zip(evaluate(part, args), declared, strict=True)
            ]

        env.update(zip(part.output_names, rerun(), strict=True))
        return rerun

    bind = _by_name(run, part.inputs, part.output_names)
    return Segment(group, run, group.name, bind, _stand_ins(fusion, group.outputs))


def inductor_segment(compiled: Compiled) -> Segment:
    group = compiled.segmentation.groups[0]
    fusion = compiled.fusion
    compiled_fn = inductor.compile_with_inductor(fusion)

    def run(env: Env, poison: bool) -> Rerun:
        args = [env[name] for name in fusion.inputs]

        def rerun() -> object:
            return compiled_fn(*args)

        env.update(zip(fusion.output_names, rerun(), strict=True))
        return rerun

    bind = _by_name(run, fusion.inputs, fusion.output_names)
    return Segment(group, run, INDUCTOR, bind, _stand_ins(fusion, fusion.output_names))


def _alias_segment(compiled: Compiled, group: Group) -> Segment:
    """Outputs that are strided views of an input: no kernel, only `as_strided` with the offset, shape
    and strides the alias analysis found."""
    views = [alias for alias in compiled.segmentation.aliases if alias.output in group.outputs]
    assert {v.output for v in views} == set(group.outputs), f"group {group.id} has outputs without alias info"

    def run(env: Env, poison: bool) -> None:
        for view in views:
            base = env[view.input]
            env[view.output] = base.as_strided(view.shape, view.strides, base.storage_offset() + view.offset)
        return None

    def bind(positions: dict[str, int], poison: bool, static: bool) -> Step:
        made = []
        for view in views:
            made.append((positions[view.input], view.shape, view.strides, view.offset))
            positions[view.output] = len(positions)

        def step(values: list[Any], stream: int | None) -> None:
            for base_at, shape, strides, offset in made:
                base = values[base_at]
                values.append(base.as_strided(shape, strides, base.storage_offset() + offset))

        return step

    stand_ins = _stand_ins(compiled.scheduled, group.outputs)

    def dry(env: Env) -> None:
        try:
            run(env, False)  # the views themselves where their bases are real: their alignment is known
        except RuntimeError:
            stand_ins(env)  # a base that is a stand-in has no room for the view

    return Segment(group, run, group.name, bind, dry)


def _by_name(run: Callable[[Env, bool], object], reads: tuple[str, ...], writes: tuple[str, ...]) -> Bind:
    """The `bind` of a segment torch runs on named values: its step names them for `run`."""

    def bind(positions: dict[str, int], poison: bool, static: bool) -> Step:
        read = tuple((name, positions[name]) for name in reads)
        positions.update((name, len(positions)) for name in writes)

        def step(values: list[Any], stream: int | None) -> None:
            env = {name: values[i] for name, i in read}
            run(env, poison)
            values.extend(env[name] for name in writes)

        return step

    return bind


def _stand_ins(fusion: Fusion, names: tuple[str, ...]) -> Callable[[Env], None]:
    """The `dry` of a segment without a kernel: stand-ins for its outputs, nothing to compile."""
    device = run_device()

    def dry(env: Env) -> None:
        env.update((name, stand_in(fusion.value(name), device)) for name in names)

    return dry


def stand_in(value: Value, device: torch.device) -> Any:
    """What a dry launch passes for a value it does not have: an empty tensor of its dtype (its address,
    0, is aligned as every allocation is), or a scalar that Triton specializes on nothing."""
    if value.is_tensor:
        return torch.empty(0, dtype=value.dtype.torch, device=device)
    if value.const is not None:
        return _launch_arg(value.const)
    return 0.5 if value.dtype.is_float else 3


def same_layout(tensor: torch.Tensor, value: Value) -> bool:
    """Strides agree wherever they matter (a dim of extent 1 has no stride to speak of)."""
    return all(n == 1 or a == b for n, a, b in zip(value.shape, tensor.stride(), value.strides, strict=True))


def _in_layout(tensor: torch.Tensor, value: Value) -> torch.Tensor:
    """`tensor`, or a copy of it with the strides of `value` where they differ in a dim that matters."""
    if value.is_scalar or same_layout(tensor, value):
        return tensor
    laid_out = torch.empty_strided(value.shape, value.strides, dtype=tensor.dtype, device=tensor.device)
    return laid_out.copy_(tensor)


def _launch_arg(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.dim() == 0 and value.device.type == "cpu":
        return value.item()  # a scalar torch computed (a CPU tensor) reaches the kernel as a number
    return value


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """What allocating a kernel output takes, read from its Value once per plan."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: torch.dtype
    poison: float | int | bool  # what poisoned runs fill it with

    @staticmethod
    def of(value: Value) -> OutputSpec:
        dtype = value.dtype
        return OutputSpec(tuple(value.shape), tuple(value.strides), dtype.torch, _poison_value(dtype))


def fast_allocation(device: torch.device) -> Allocate:
    """Allocation on `device` through the entry torch.compile's generated code allocates with, where this
    torch has it (`_empty_strided_cuda` on the current GPU, `_empty_strided_cpu`): it skips the Python
    argument parsing that costs `torch.empty_strided` about 2 us a call. Else `torch.empty_strided`."""
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    fast = getattr(guards, f"_empty_strided_{device.type}", None)
    if fast is not None and device.index is None:  # "cuda": the current GPU, where the fast entry allocates
        return fast

    def allocate(shape: tuple[int, ...], strides: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        return torch.empty_strided(shape, strides, dtype=dtype, device=device)

    return allocate


def _allocate(spec: OutputSpec, poison: bool, device: torch.device) -> torch.Tensor:
    buffer = torch.empty_strided(spec.shape, spec.strides, dtype=spec.dtype, device=device)
    if poison:
        buffer.fill_(spec.poison)
    return buffer


def _poison_value(dtype: DataType) -> float | int | bool:
    if dtype.is_float or dtype.is_complex:
        return float("nan")
    if dtype is DataType.Bool:
        return True
    return torch.iinfo(dtype.torch).max
