"""Compiles generated kernel modules for an sm_90 GPU (H100, H200) on the CPU and writes their PTX.

Used by test_codegen_rounding.py in a child process, `python ptx_of_kernels.py MANIFEST OUT`: a process
that imported Triton with TRITON_INTERPRET set holds interpreter forms of Triton's own functions and
compiles nothing. MANIFEST is a JSON list of {"source": module path, "args": [[shape, strides, torch
dtype name], ...]}; each module is imported as a GPU imports it, its run() is called on empty CPU tensors
with every `@triton.jit` kernel replaced by a recorder, and each recorded launch is compiled with the
options run() passed. OUT gets a JSON list: per module, the PTX of each launch.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import hfuse.errors  # noqa: F401  (what the modules import: importing hfuse may set TRITON_INTERPRET)

os.environ.pop("TRITON_INTERPRET", None)  # before Triton is imported: its own functions compile, too

import torch  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.runtime.jit import JITFunction, mangle_type  # noqa: E402

SM90 = GPUTarget("cuda", 90, 32)


class _LaunchRecorder:
    """Stands for a `@triton.jit` kernel in a module: `kernel[grid](*args, **options)` records the call."""

    def __init__(self, kernel: JITFunction, launches: list) -> None:
        self.kernel, self.launches = kernel, launches

    def __getitem__(self, grid):
        return lambda *args, **options: self.launches.append((self.kernel, args, options))


def _import(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ptx_of_module(path: Path, arg_specs: list) -> list[str]:
    module = _import(path)
    launches: list = []
    for name, value in vars(module).copy().items():
        if isinstance(value, JITFunction) and not name.startswith("_"):
            setattr(module, name, _LaunchRecorder(value, launches))
    module.run(*(torch.empty_strided(s, st, dtype=getattr(torch, d)) for s, st, d in arg_specs))
    ptx = []
    for kernel, args, options in launches:
        signature = {name: mangle_type(arg) for name, arg in zip(kernel.arg_names, args, strict=True)}
        compiled = triton.compile(ASTSource(kernel, signature, constexprs={}), target=SM90, options=options)
        ptx.append(compiled.asm["ptx"])
    return ptx


if __name__ == "__main__":
    manifest = json.loads(Path(sys.argv[1]).read_text())
    result = [ptx_of_module(Path(entry["source"]), entry["args"]) for entry in manifest]
    Path(sys.argv[2]).write_text(json.dumps(result))
