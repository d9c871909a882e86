"""Tensors bordered by memory nothing may touch. In Triton's interpreter a kernel reads and writes host
memory at the addresses it computes, so a load outside its tensor reads a neighbour's bytes and passes,
where the GPU stops with an illegal memory access. A tensor made here lies between two reserved regions
without access: any access outside it faults and the process dies (SIGSEGV), which a test sees.

`at_end` places the tensor's bytes against the region after it (an access past its end faults at once);
otherwise against the region before it (an access before its start faults at once).
"""

from __future__ import annotations

import ctypes
import mmap

import torch

GUARD_BYTES = 64 << 20  # address space only: the guards are never backed by memory
PROT_NONE = 0
_LIBC = ctypes.CDLL(None, use_errno=True)
_kept: list[mmap.mmap] = []  # the regions live as long as the process: tensors point into them


def _guarded_bytes(nbytes: int, at_end: bool) -> torch.Tensor:
    page = mmap.PAGESIZE
    body = max(page, -(-nbytes // page) * page)
    region = mmap.mmap(-1, GUARD_BYTES + body + GUARD_BYTES)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    for start in (base, base + GUARD_BYTES + body):
        if _LIBC.mprotect(ctypes.c_void_p(start), ctypes.c_size_t(GUARD_BYTES), PROT_NONE):
            raise OSError(ctypes.get_errno(), "mprotect failed")
    _kept.append(region)
    offset = GUARD_BYTES + (body - nbytes if at_end else 0)
    return torch.frombuffer(region, dtype=torch.uint8, count=nbytes, offset=offset)


def guarded_like(tensor: torch.Tensor, at_end: bool) -> torch.Tensor:
    """A CPU copy of `tensor` with its strides (an expanded one too), its storage exactly the elements
    its strides reach."""
    if not tensor.numel():  # nothing to read or write: its address is an element before a guard
        nothing = _guarded_bytes(tensor.element_size(), at_end).view(tensor.dtype)[:0]
        return nothing.as_strided(tensor.shape, tensor.stride())
    span = 1 + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride(), strict=True))
    storage = _guarded_bytes(span * tensor.element_size(), at_end).view(tensor.dtype)
    storage.copy_(tensor.as_strided((span,), (1,)))  # the elements as laid out, shared ones once
    return storage.as_strided(tensor.shape, tensor.stride())
