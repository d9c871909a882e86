"""One fusion as a standalone benchmark script: a plain Python file that needs torch and Triton only.

The script holds the generated kernels' modules, the plan that runs them (kernel launches and the views
of outputs left as views) and the layouts of the inputs. It builds random inputs of those shapes, runs the
kernels, a clone of the bytes the fusion must move, and, where hfuse is importable, torch eager and
torch.compile of hfuse's op-by-op reference, and prints each one's time and GB/s. `--device cpu` runs the
kernels in Triton's interpreter (outputs computed, times meaningless).
"""

from __future__ import annotations

import pprint
from typing import Any

from hfuse.codegen.model import KernelSource
from hfuse.errors import UnsupportedError
from hfuse.frontend.definition import flat_inputs
from hfuse.ir import Fusion, Value
from hfuse.loader.script import Script
from hfuse.pipeline import Compiled
from hfuse.runtime.bytes import fusion_bytes
from hfuse.segment.model import SchedulerKind

HFUSE_IMPORT = "from hfuse.errors import KernelError"
STANDALONE_ERROR = "class KernelError(Exception):\n    pass"

HEADER = '''"""Benchmark of one fusion ({strategy}, {kernels} kernels): its Triton kernels beside torch.

Made by `hfuse bench-script`; needs torch and Triton. Run it as `python FILE [--device cuda|cpu]`; on the
CPU set TRITON_INTERPRET=1: the kernels run in Triton's interpreter (outputs computed, times meaningless).
"""

import argparse
import importlib.util
import os
import tempfile
import time

import torch
import triton

'''
RUNNER = '''

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    return parser.parse_args()


def load_kernels(folder):
    """@triton.jit reads a kernel's source from its file: each module is written out, then imported."""
    modules = {}
    for name, source in KERNELS.items():
        path = os.path.join(folder, name + ".py")
        with open(path, "w") as out:
            out.write(source)
        spec = importlib.util.spec_from_file_location(name, path)
        modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules[name])
    return modules


def make_inputs(device):
    """Random values in the fusion's own shapes and strides (integers 0 or 1, so indices stay in bounds)."""
    made = []
    for name, shape, strides, dtype, value in INPUTS:
        if shape is None:
            made.append(value)
            continue
        dtype = getattr(torch, dtype)
        tensor = torch.empty_strided(shape, strides, dtype=dtype, device=device)
        if dtype.is_floating_point:
            tensor.copy_(torch.randn(shape, device=device))
        elif dtype.is_complex:
            tensor.copy_(torch.randn(shape, dtype=dtype, device=device))
        elif dtype == torch.bool:
            tensor.copy_(torch.rand(shape, device=device) < 0.5)
        else:
            tensor.copy_(torch.randint(0, 2, shape, device=device))
        made.append(tensor)
    return made


def run_kernels(modules, inputs, device):
    """The plan: each kernel launched on what it reads with fresh outputs, each view taken of its input."""
    env = dict(CONSTANTS)
    env.update(zip(INPUT_NAMES, inputs))
    for step in STEPS:
        if step[0] == "view":
            _, output, base, shape, strides, offset = step
            env[output] = env[base].as_strided(shape, strides, env[base].storage_offset() + offset)
            continue
        _, kernel, reads, writes = step
        buffers = [
            torch.empty_strided(shape, strides, dtype=getattr(torch, dtype), device=device)
            for _, shape, strides, dtype in writes
        ]
        modules[kernel].launch(*[env[name] for name in reads], *buffers)
        env.update((name, buffer) for (name, *_), buffer in zip(writes, buffers))
    return [env[name] for name in OUTPUT_NAMES]


def time_ms(fn, device):
    """The median of triton.testing.do_bench on a GPU; one call's wall time elsewhere."""
    if device.startswith("cuda"):
        return triton.testing.do_bench(fn, return_mode="median")
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def torch_candidates(inputs, outputs, device):
    """torch eager and torch.compile of hfuse's op-by-op reference, where hfuse is installed; the kernels'
    outputs are checked against torch eager's."""
    try:
        import hfuse
    except ImportError:
        print("torch eager and torch.compile need hfuse's reference (pip install hfuse): skipped")
        return []
    fd = hfuse.load(DEFINITION, device=device, segment=SEGMENT).fd
    expected = fd.execute(inputs, backend="eager", alias_outputs=False)
    differences = [(o.double() - e.double()).abs().max() for o, e in zip(outputs, expected) if o.numel()]
    error = max((float(d) for d in differences), default=0.0)
    print(f"max abs difference from torch eager: {error:.3g}")
    found = [("torch eager", lambda: fd.execute(inputs, backend="eager", alias_outputs=False))]
    if device.startswith("cuda"):
        found.append(("torch.compile", lambda: fd.execute(inputs, backend="inductor", alias_outputs=False)))
    return found


def main():
    args = parse_args()
    device = args.device
    inputs = make_inputs(device)
    with tempfile.TemporaryDirectory() as folder:
        modules = load_kernels(folder)
        outputs = run_kernels(modules, inputs, device)
        shapes = ", ".join(f"{list(o.shape)} {o.dtype}" for o in outputs)
        print(f"kernels: {len(KERNELS)}; outputs: {shapes}")
        clone_source = torch.empty(max(BYTES_MOVED // 2, 1), dtype=torch.uint8, device=device)
        candidates = [("hfuse", lambda: run_kernels(modules, inputs, device))]
        candidates += torch_candidates(inputs, outputs, device)
        candidates.append(("clone of the same bytes", clone_source.clone))
        if not device.startswith("cuda"):
            print("On the CPU the kernels run in Triton's interpreter: the times below mean nothing.")
        print(f"{'candidate':<26}{'time (ms)':>12}{'GB/s':>10}")
        for name, fn in candidates:
            fn()  # compiles, warms up
            ms = time_ms(fn, device)
            print(f"{name:<26}{ms:>12.4f}{BYTES_MOVED / ms / 1e6:>10.1f}")


if __name__ == "__main__":
    main()
'''


def bench_script(script: Script, compiled: Compiled) -> str:
    """The benchmark script of `compiled` (a compile of `script`'s fusion). UnsupportedError where a segment
    runs in torch: the script would need hfuse to run it."""
    scheduled = compiled.scheduled
    torch_groups = [g.name for g in compiled.segmentation.groups if g.kind is SchedulerKind.TORCH]
    if torch_groups:
        raise UnsupportedError(
            f"segments {', '.join(torch_groups)} run in torch, not as generated kernels: a standalone "
            "script cannot run them; benchmark this fusion with `hfuse run` or the app's Run page"
        )
    reads, writes = fusion_bytes(scheduled, compiled.segmentation.groups)
    data = {
        "DEFINITION": script.text,
        "SEGMENT": script.segment,
        "KERNELS": {k.name: _standalone(k) for k in compiled.kernels},
        "INPUT_NAMES": scheduled.inputs,
        "INPUTS": [
            _input_spec(scheduled.value(n), v)
            for n, v in zip(scheduled.inputs, flat_inputs(script.inputs), strict=True)
        ],
        "CONSTANTS": [(v.name, v.const) for v in scheduled.values if v.is_scalar and v.const is not None],
        "STEPS": _steps(compiled),
        "OUTPUT_NAMES": tuple(out.name for out in scheduled.outputs),
        "BYTES_MOVED": reads + writes,
    }
    count = len(compiled.kernels)
    header = HEADER.format(strategy=compiled.strategy, kernels=f"{count} kernel{'s' if count != 1 else ''}")
    constants = "\n".join(
        f"{name} = {pprint.pformat(value, width=110, sort_dicts=False)}" for name, value in data.items()
    )
    return header + constants + "\n" + RUNNER


def _standalone(kernel: KernelSource) -> str:
    assert HFUSE_IMPORT in kernel.source, f"{kernel.name}: the generated module's imports changed"
    return kernel.source.replace(HFUSE_IMPORT, STANDALONE_ERROR)


def _input_spec(value: Value, given: Any) -> tuple[Any, ...]:
    """(name, shape, strides, torch dtype name, None) of a tensor input; (name, None, None, None, number)
    of a scalar one, the number the script's own inputs hold."""
    if value.is_tensor:
        return (value.name, value.shape, value.strides, _torch_name(value), None)
    if hasattr(given, "item"):
        given = 0 if given.is_meta else given.item()  # a script loaded without data: any number does
    return (value.name, None, None, None, given)


def _torch_name(value: Value) -> str:
    return str(value.dtype.torch).removeprefix("torch.")


def _steps(compiled: Compiled) -> list[tuple[Any, ...]]:
    scheduled: Fusion = compiled.scheduled
    aliases = {alias.output: alias for alias in compiled.segmentation.aliases}
    steps: list[tuple[Any, ...]] = []
    for group in compiled.segmentation.groups:
        if group.kind is SchedulerKind.ALIAS:
            for name in group.outputs:
                view = aliases[name]
                steps.append(("view", name, view.input, view.shape, view.strides, view.offset))
            continue
        kernel = compiled.kernel_of(group)
        written = [scheduled.value(n) for n in kernel.outputs]
        writes = tuple((v.name, v.shape, v.strides, _torch_name(v)) for v in written)
        steps.append(("kernel", kernel.name, kernel.inputs, writes))
    return steps
