"""A hand-written kernel module for the kernel-cache tests: `out = x * factor`."""

from __future__ import annotations

from hfuse.codegen.model import KernelSource


def scale_kernel_source(factor: int, tag: str = "") -> str:
    """The module's text; `tag` (a comment) makes a source no earlier test has imported."""
    return f"""\
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * {factor}, mask=mask)


def launch(x, out):
    scale_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
""" + (f"# {tag}\n" if tag else "")


def kernel_source(source: str, name: str = "scale", group_id: int = 0) -> KernelSource:
    return KernelSource(name, group_id, "pointwise", source, ("x",), ("out",), (4,), 4)
