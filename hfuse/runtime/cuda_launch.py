"""hfuse's own launch of a compiled Triton kernel: `cuLaunchKernel` from a small C function
(`cuda_launch.c`), with the kernel's handle, grid, block and parameter types bound once.

Triton 3.6's C launch function parses thirteen leading arguments, checks the CUDA context and
the launch hooks and fills a launch configuration on every call; this one takes the bound values
and the kernel's arguments (data addresses, or the tensors themselves, whose specializations it
checks against the compiled kernel's), so a cached call spends less host time on each launch. It
is built with Triton's own compiler helper (its cache keeps the built module between processes)
for kernels whose parameters are all addresses, integers and float32/float64 scalars; any other
kernel, or a machine where it cannot be built, keeps Triton's C launch.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

SOURCE = Path(__file__).with_name("cuda_launch.c")
SCRATCH_PARAMS = b"zz"  # Triton 3.6 appends a global and a profile scratch address to every kernel

# Triton's type of a kernel parameter -> its letter in the C function's `kinds`
KINDS = {
    "i1": b"b", "i8": b"b", "i16": b"h", "i32": b"i", "i64": b"l",
    "u1": b"B", "u8": b"B", "u16": b"H", "u32": b"I", "u64": b"L",
    "fp32": b"f", "fp64": b"d", "constexpr": b"x",
}  # fmt: skip

OwnLaunch = Callable[..., bool]  # (stream, *args) -> launched; False: launch through Triton instead


def kinds(signature: dict[str, Any]) -> bytes | None:
    """The C function's `kinds` for a kernel of this Triton signature, or None where a parameter's type
    is not one it passes (fp16 and bf16 scalars, tensor descriptors, tuples)."""
    letters = []
    for type_ in signature.values():
        if isinstance(type_, str) and type_.startswith("*"):
            letters.append(b"p")
        elif isinstance(type_, str) and type_ in KINDS:
            letters.append(KINDS[type_])
        else:
            return None
    return b"".join(letters) + SCRATCH_PARAMS


@functools.cache
def c_module() -> ModuleType | None:
    """The built C module, or None where it cannot be built (no C compiler, no Triton CUDA headers)."""
    try:
        import triton.backends.nvidia as nvidia
        from triton.runtime.build import compile_module_from_src

        include = os.path.join(os.path.dirname(nvidia.__file__), "include")
        source = SOURCE.read_text(encoding="utf-8")
        return compile_module_from_src(src=source, name="hfuse_cuda_launch", include_dirs=[include])
    except Exception:  # noqa: BLE001 - any failure to build leaves Triton's launch in place
        return None


def bound_launch(compiled: Any, grid: tuple[int, int, int], expected: bytes = b"") -> OwnLaunch | None:
    """The launch of `compiled` (a Triton 3.6 CompiledKernel of one CTA per program, without cooperative
    or programmatic launch) on `grid`, taking the stream and the kernel's arguments; None where this
    launch does not apply. `expected`: the arguments' specializations it launches (see cuda_launch.c);
    empty: any."""
    metadata = getattr(compiled, "metadata", None)
    signature = getattr(getattr(compiled, "src", None), "signature", None)
    if metadata is None or not isinstance(signature, dict):
        return None
    if getattr(metadata, "num_ctas", 1) != 1 or metadata.launch_cooperative_grid or metadata.launch_pdl:
        return None
    letters = kinds(signature)
    module = c_module() if letters is not None else None
    if module is None or not module.available():
        return None
    threads, shared = 32 * metadata.num_warps, metadata.shared
    return functools.partial(module.launch, compiled.function, *grid, threads, shared, letters, expected)
