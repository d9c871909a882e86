"""Host cost of a cached `fd.execute`, with the kernels launched and with every launch made a no-op.

    PYTHONPATH=. python3 bench/host_overhead.py [example ...]

Prints, per example (nanoGPT size), microseconds per call over 10,000 cached calls: the whole call,
the call with Triton's launch replaced by a no-op (hfuse's own host work: lookup, allocation, checks),
and the generated `run()` alone (Triton's launch). Needs a GPU: in the interpreter these sizes
would take hours.
"""

from __future__ import annotations

import sys
import time

import torch

from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.runtime import execute
from hfuse.runtime.kernel_cache import load_kernel

CALLS = 10_000


def per_call_us(fn, calls: int = CALLS) -> float:
    for _ in range(100):
        fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


class _NoLaunch:
    """Stands for a `@triton.jit` kernel: `kernel[grid](...)` does nothing."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def measure(name: str) -> tuple[float, float, float]:
    script = load(get_example(name, "nanogpt").text)
    fd, inputs = script.fd, script.inputs
    outputs, _, compiled = execute(script.fusion, inputs, alias_outputs=False)
    whole = per_call_us(lambda: fd.execute(inputs, alias_outputs=False))
    modules = [load_kernel(kernel) for kernel in compiled.kernels]
    kernels = [
        (module, kernel.name, getattr(module, kernel.name))
        for module, kernel in zip(modules, compiled.kernels, strict=True)
    ]
    for module, kernel_name, _ in kernels:
        setattr(module, kernel_name, _NoLaunch())
    host = per_call_us(lambda: fd.execute(inputs, alias_outputs=False))
    for module, kernel_name, kernel in kernels:
        setattr(module, kernel_name, kernel)
    if len(compiled.kernels) != 1:
        return whole, host, float("nan")
    env = dict(zip(script.fusion.inputs, inputs, strict=True)) | dict(
        zip(script.fusion.output_names, outputs, strict=True)
    )
    kernel = compiled.kernels[0]
    args = [env[n] for n in kernel.args]
    return whole, host, per_call_us(lambda: modules[0].run(*args))


def main(names: list[str]) -> None:
    print(f"{'example':<20} {'fd.execute us':>14} {'no-op launch us':>16} {'run() alone us':>15}")
    for name in names:
        whole, host, launch = measure(name)
        print(f"{name:<20} {whole:>14.1f} {host:>16.1f} {launch:>15.1f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["qkv_split", "softmax", "layernorm", "rope"])
