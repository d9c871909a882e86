"""Assembles sub-kernel bodies into one Triton module: its `@triton.jit` kernels and `launch(...)`.

A kernel is a sequence of parts. Each part is a body run by a contiguous range of program ids,
so one launch computes several index spaces (the outputs of a horizontal group, or pointwise
outputs of different shapes): `if pid < end0: <part 0> elif pid < end1: <part 1> ...`.
A module launches one kernel, or several in order (a split reduction: partials, then the rest),
handing values from one to the next in scratch buffers that `run()` allocates on every call. `LAUNCHES`
and `SCRATCH` describe those launches for a runtime that launches the compiled kernels itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hfuse.codegen.indexing import INT32_LIMIT
from hfuse.codegen.lower import pointer
from hfuse.codegen.mathlib import helpers_for
from hfuse.dtypes import DataType
from hfuse.ir import Value


@dataclass(frozen=True, slots=True)
class Part:
    """One sub-kernel: `lines` (indented from column 0) run by `programs` program ids as `prog`."""

    label: str
    programs: int
    lines: tuple[str, ...]
    num_warps: int
    wide_index: bool = False
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Scratch:
    """A buffer of `numel` elements that `run()` allocates on every call, on its arguments' device."""

    name: str
    dtype: DataType
    numel: int


def typed_buffers(
    prefix: str, dtypes: Sequence[DataType], per_slot: int
) -> tuple[list[tuple[str, int]], tuple[Scratch, ...]]:
    """A slot of `per_slot` elements for each of `dtypes`, in one buffer `<prefix>_<type>` per stored type
    (reduced floats in float32, as they are computed): each slot's (buffer, index in it), and the buffers."""
    places: list[tuple[str, int]] = []
    types: dict[str, DataType] = {}  # buffer -> its type
    taken: dict[str, int] = {}  # buffer -> slots taken
    for dtype in dtypes:
        stored = DataType.Float if dtype.is_reduced_float else dtype
        name = f"{prefix}_{str(stored.torch).removeprefix('torch.')}"
        types[name] = stored
        places.append((name, taken.get(name, 0)))
        taken[name] = places[-1][1] + 1
    return places, tuple(Scratch(name, types[name], taken[name] * per_slot) for name in types)


@dataclass(frozen=True, slots=True)
class Launch:
    """One `@triton.jit` kernel of a module: its parts and the names of the arguments it takes, in order
    (the module's arguments and scratch buffers)."""

    name: str
    parts: tuple[Part, ...]
    params: tuple[str, ...]

    @property
    def programs(self) -> int:
        return sum(part.programs for part in self.parts)

    @property
    def num_warps(self) -> int:
        return max(part.num_warps for part in self.parts)


def next_power_of_2(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def largest_offset(value: Value) -> int:
    return sum((extent - 1) * abs(stride) for extent, stride in zip(value.shape, value.strides, strict=True))


def needs_wide_index(values: Sequence[Value], positions: int) -> bool:
    """int64 index math when a position or an element offset may not fit in int32."""
    return positions > INT32_LIMIT or any(v.is_tensor and largest_offset(v) > INT32_LIMIT for v in values)


def _indent(lines: Sequence[str], depth: int) -> list[str]:
    pad = "    " * depth
    return [pad + line if line else line for line in lines]


def _kernel_body(parts: Sequence[Part]) -> list[str]:
    if len(parts) == 1:
        part = parts[0]
        start = "tl.program_id(0).to(tl.int64)" if part.wide_index else "tl.program_id(0)"
        return [f"# {part.label}", f"prog = {start}", *part.lines]
    lines = ["pid = tl.program_id(0)"]
    begin = 0
    for n, part in enumerate(parts):
        end = begin + part.programs
        keyword = "if" if n == 0 else "elif"
        local = "pid" if begin == 0 else f"(pid - {begin})"
        if part.wide_index:
            local = f"{local}.to(tl.int64)" if begin else "pid.to(tl.int64)"
        lines += [f"{keyword} pid < {end}:", f"    # {part.label}", f"    prog = {local}"]
        lines += _indent(part.lines, 1)
        begin = end
    return lines


def _torch_dtype(dtype: DataType) -> str:
    return f"torch.{str(dtype.torch).removeprefix('torch.')}"


_SCALAR_ANNOTATIONS = {DataType.Double: "tl.float64", DataType.Int: "tl.int64"}


def _kernel(launch: Launch, tensors: set[str], annotated: dict[str, str]) -> list[str]:
    """Double and Int scalars are annotated: on a GPU Triton passes an unannotated Python float as float32
    (its interpreter keeps the double), which turns 1e300 into inf and 1e-300 into 0, and a Python int that
    fits as int32, which makes `S >> 63` of an Int scalar a compile error."""
    params = [
        pointer(name) if name in tensors else f"{name}: {annotated[name]}" if name in annotated else name
        for name in launch.params
    ]
    header = f"def {launch.name}({', '.join(params)}):"
    return ["@triton.jit", header, *_indent(_kernel_body(launch.parts), 1)]


# Kernels launch with floating-point contraction off, so every op rounds to its dtype as the fusion says
# (and as the torch reference does). With it on, the compiler may turn a * b + c into one fma, which skips
# the rounding of a * b; for bf16 and fp16 that is a rounding of the fusion: `bf16(bf16(a * b) + c)` of bf16
# values is narrowed, exactly, to a bf16 mul and a bf16 add, which then contract into a bf16 fma.
LAUNCH_OPTIONS = "enable_fp_fusion=False"


def _run(launches: Sequence[Launch], args: Sequence[Value], scratch: Sequence[Scratch]) -> list[str]:
    """The body of `run()`: it allocates the scratch buffers, launches in order and returns what Triton
    returns for each launch, one value for a module of one launch, else a tuple (the runtime may keep the
    compiled kernels and launch them again itself, as `LAUNCHES` says)."""
    calls = [
        f"{launch.name}[({launch.programs},)]({', '.join(launch.params)}, {LAUNCH_OPTIONS}, "
        f"num_warps={launch.num_warps})"
        for launch in launches
        if launch.programs
    ]
    if len(launches) == 1:
        return [f"    return {calls[0]}" if calls else "    return None"]
    device = next(v.name for v in args if v.is_tensor)
    allocations = [
        f"    {s.name} = torch.empty({s.numel}, dtype={_torch_dtype(s.dtype)}, device={device}.device)"
        for s in scratch
    ]
    return [*allocations, "    return (", *(f"        {call}," for call in calls), "    )"]


def _launch_table(launches: Sequence[Launch], args: Sequence[Value], scratch: Sequence[Scratch]) -> list[str]:
    """`LAUNCHES`: each launch of `run()` as its kernel's name, its grid and its arguments' positions in
    run's arguments followed by the scratch buffers; `SCRATCH`: each scratch buffer's numel and dtype."""
    positions = {name: i for i, name in enumerate([*(v.name for v in args), *(s.name for s in scratch)])}
    rows = [
        f"    ({launch.name!r}, ({launch.programs}, 1, 1), {tuple(positions[p] for p in launch.params)!r}),"
        for launch in launches
        if launch.programs
    ]
    buffers = [f"    ({s.numel}, {_torch_dtype(s.dtype)})," for s in scratch]
    return ["LAUNCHES = (", *rows, ")", "SCRATCH = (", *buffers, ")"]


def assemble(
    title: str,
    launches: Sequence[Launch],
    args: Sequence[Value],
    scratch: Sequence[Scratch] = (),
    summary: str = "",
) -> str:
    """The module's source. `summary`: a paragraph for the module docstring, after the title."""
    tensors = {v.name for v in args if v.is_tensor} | {s.name for s in scratch}
    annotated = {
        v.name: _SCALAR_ANNOTATIONS[v.dtype]
        for v in args
        if not v.is_tensor and v.dtype in _SCALAR_ANNOTATIONS
    }
    kernel_text = "\n\n\n".join("\n".join(_kernel(launch, tensors, annotated)) for launch in launches)
    described = "\n".join(
        f"  {v.describe()}, strides {list(v.strides)}" if v.is_tensor else f"  {v.describe()}" for v in args
    )
    checks = [
        f"    _expect({v.name}, {v.name!r}, {v.shape!r}, {v.strides!r}, {_torch_dtype(v.dtype)})"
        for v in args
        if v.is_tensor
    ]
    names = ", ".join(v.name for v in args)
    one = len(launches) == 1
    kernels, were, them = ("the kernel", "was", "it") if one else ("the kernels", "were", "them")
    checked = f"Checks every argument against the layout {kernels} {were} generated for, then runs {them}."
    launch = [
        f"def launch({names}):",
        f'    """{checked}"""',
        *checks,
        f"    return run({names})",
        "",
        "",
        "@_quietly",
        f"def run({names}):",
        f'    """Runs {kernels} on arguments already checked by an earlier launch() of the same layouts."""',
        *_run(launches, args, scratch),
    ]
    return "\n".join(
        [
            f'"""{title}',
            "",
            *([summary, ""] if summary else []),
            "Arguments, in launch order:",
            described,
            '"""',
            "",
            "import functools",
            "import os",
            "",
            "import numpy",
            "import torch",
            "import triton",
            "import triton.language as tl",
            "",
            "from hfuse.errors import KernelError",
            "",
            helpers_for(kernel_text),
            "",
            "",
            kernel_text,
            "",
            "",
            _EXPECT,
            "",
            "",
            _QUIETLY,
            "",
            "",
            *launch,
            "",
            "",
            "# run()'s launches, for a caller that launches the compiled kernels itself",
            *_launch_table(launches, args, scratch),
            "",
        ]
    )


_EXPECT = """def _expect(tensor, name, shape, strides, dtype):
    if (
        tensor.dtype != dtype
        or tuple(tensor.shape) != shape
        or any(got != want for got, want, n in zip(tensor.stride(), strides, shape) if n != 1)
    ):
        raise KernelError(
            f"{name}: the kernel was generated for {dtype} {list(shape)} with strides {list(strides)}, "
            f"got {tensor.dtype} {list(tensor.shape)} with strides {list(tensor.stride())}; "
            "generate the kernel again for these inputs"
        )"""


_QUIETLY = """def _quietly(run):
    # Triton's interpreter computes with numpy, which warns about inf and nan in masked-off lanes.
    if os.environ.get("TRITON_INTERPRET") != "1":
        return run

    @functools.wraps(run)
    def quiet(*args):
        with numpy.errstate(all="ignore"):
            return run(*args)

    return quiet"""
