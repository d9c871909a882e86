"""Triton's own IRs of hfuse's kernels (TTIR, TTGIR, LLVM IR, PTX), compiled for an sm_90 GPU (H100,
H200) on any machine: Triton compiles for a target without a GPU to run on.

`triton_irs(compileds)` asks one child process (`python -m hfuse.tools.triton_ir`), because a process that
imported Triton for its interpreter (as hfuse does without CUDA) holds interpreter forms of Triton's own
functions and compiles nothing. The child imports each generated module (hfuse's own source, never a
script's text), calls its `run()` on empty CPU tensors with every `@triton.jit` kernel replaced by a
recorder, and compiles each recorded launch with the options `run()` passed: the same compile a GPU's
first launch does, and reads what one program of each launch holds from its cubin.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hfuse.errors import HfuseError, LimitError
from hfuse.tools.occupancy import Resources, parse_resource_usage

STAGES = ("ttir", "ttgir", "llir", "ptx")  # in the order Triton lowers a kernel
TARGET = "sm_90"
TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class LaunchIRs:
    """One launch of a kernel module (a split reduction has two or three), as Triton lowers it."""

    kernel: str
    irs: dict[str, str]  # stage -> text
    resources: Resources | None = None  # None where this Triton has no cuobjdump to read its cubin

    @property
    def held(self) -> str | None:
        """What one program of the launch holds on an SM, as a sentence; None where not read."""
        if self.resources is None:
            return None
        return f"{self.kernel} on an SM of an H200: {self.resources.summary()}"


def triton_irs(compileds: Sequence[Any], timeout_s: float = TIMEOUT_S) -> list[list[LaunchIRs]]:
    """For each compiled fusion, every launch of its kernels with its IRs for sm_90; an HfuseError when
    Triton has no NVIDIA backend here, or the compile fails or outlasts `timeout_s`."""
    with tempfile.TemporaryDirectory(prefix="hfuse-triton-ir-") as folder:
        manifest, owner = [], []
        for c, compiled in enumerate(compileds):
            for n, kernel in enumerate(compiled.kernels):
                source = Path(folder) / f"kernel_{c}_{n}.py"
                source.write_text(kernel.source)
                values = [compiled.scheduled.value(arg) for arg in kernel.args]
                manifest.append({"source": str(source), "args": [_argument(value) for value in values]})
                owner.append(c)
        (Path(folder) / "manifest.json").write_text(json.dumps(manifest))
        env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
        env["TRITON_CACHE_DIR"] = str(Path(folder) / "triton-cache")
        try:
            done = subprocess.run(
                [sys.executable, "-m", "hfuse.tools.triton_ir", folder],
                capture_output=True, text=True, env=env, timeout=timeout_s, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise LimitError(f"compiling the kernels for {TARGET} took over {timeout_s:g} s") from None
        if done.returncode != 0:
            why = done.stderr.strip()[-600:]
            raise HfuseError(f"Triton could not compile the kernels for {TARGET}: {why}")
        found = json.loads((Path(folder) / "irs.json").read_text())
    result: list[list[LaunchIRs]] = [[] for _ in compileds]
    for c, module in zip(owner, found, strict=True):
        result[c] += [
            LaunchIRs(
                launch["kernel"],
                launch["irs"],
                Resources(**launch["resources"]) if launch["resources"] else None,
            )
            for launch in module
        ]
    return result


def _argument(value: Any) -> dict[str, Any]:
    if not value.is_tensor:
        return {"scalar": 0.5 if value.dtype.is_float else 3}  # values Triton specializes on nothing
    dtype = str(value.dtype.torch).removeprefix("torch.")
    return {"shape": list(value.shape), "strides": list(value.strides), "dtype": dtype}


def _compile_modules(folder: Path) -> list[list[dict[str, Any]]]:
    """In the child: each module of the manifest, each of its launches compiled for sm_90."""
    os.environ.pop("TRITON_INTERPRET", None)  # before Triton is imported: its own functions compile too
    import importlib.util

    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction, mangle_type

    target = GPUTarget("cuda", 90, 32)

    class Recorder:
        """Stands for a `@triton.jit` kernel: `kernel[grid](*args, **options)` records the call."""

        def __init__(self, kernel: JITFunction, launches: list) -> None:
            self.kernel, self.launches = kernel, launches

        def __getitem__(self, grid: Any) -> Any:
            return lambda *args, **options: self.launches.append((self.kernel, args, options))

    def argument(spec: dict[str, Any]) -> Any:
        if "scalar" in spec:
            return spec["scalar"]
        return torch.empty_strided(spec["shape"], spec["strides"], dtype=getattr(torch, spec["dtype"]))

    def signature(kernel: JITFunction, args: Sequence[Any]) -> dict[str, str]:
        types = {}
        for param, arg in zip(kernel.params, args, strict=True):
            annotated = param.annotation_type  # a Double scalar's tl.float64
            types[param.name] = annotated if annotated else mangle_type(arg)
        return types

    def divisible_by_16(arg: Any) -> bool:
        if isinstance(arg, torch.Tensor):
            return arg.data_ptr() % 16 == 0
        return type(arg) is int and arg % 16 == 0

    def attributes(args: Sequence[Any]) -> dict[tuple[int], list[list[Any]]]:
        """What Triton's launch specializes on, as on the GPU: a pointer 16-byte aligned, an integer
        divisible by 16 (loads and stores are vectorized only with it)."""
        return {(i,): [["tt.divisibility", 16]] for i, arg in enumerate(args) if divisible_by_16(arg)}

    result = []
    for entry in json.loads((folder / "manifest.json").read_text()):
        path = Path(entry["source"])
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        launches: list = []
        for name, value in vars(module).copy().items():
            if isinstance(value, JITFunction) and not name.startswith("_"):
                setattr(module, name, Recorder(value, launches))
        module.run(*(argument(arg) for arg in entry["args"]))
        compiled = []
        for kernel, args, options in launches:
            source = ASTSource(kernel, signature(kernel, args), constexprs={}, attrs=attributes(args))
            binary = triton.compile(source, target=target, options=options)
            irs = {s: binary.asm.get(s, "") for s in STAGES}
            resources = _resources(binary, folder)
            compiled.append({"kernel": kernel.__name__, "irs": irs, "resources": resources})
        result.append(compiled)
    return result


def _resources(binary: Any, folder: Path) -> dict[str, int] | None:
    """In the child: what one program of the compiled kernel holds, read from its cubin by the cuobjdump
    that comes with Triton; None without one."""
    from triton import knobs

    try:
        tool = knobs.nvidia.cuobjdump.path
    except (AttributeError, RuntimeError, OSError):  # no NVIDIA tools beside this Triton
        return None
    cubin = folder / "kernel.cubin"
    cubin.write_bytes(binary.asm["cubin"])
    try:
        report = subprocess.run([tool, "-res-usage", str(cubin)], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = parse_resource_usage(report.stdout, binary.metadata.shared, binary.metadata.num_warps)
    return None if found is None else dataclasses.asdict(found)


if __name__ == "__main__":
    where = Path(sys.argv[1])
    (where / "irs.json").write_text(json.dumps(_compile_modules(where)))
