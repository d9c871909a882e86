"""A validated call's small outputs, written again in place once nothing outside the plan holds them.

Allocating an output costs a cached call about as much host time as a launch. So each small kernel
output of a plan keeps the buffer it returned last, and the next call on the same stream writes that
buffer again when the caller has let go of it: no Python reference, no view, no other tensor sharing
its storage, no DLPack export and no weak reference. That is the reuse torch's caching allocator would
make of the freed block on the same stream, without the allocation. A buffer still held is left to its
holder and a new one is allocated; a call captured into a CUDA graph allocates from the graph's pool.
Large outputs are allocated every call: there the kernels, not the host, set the time, and keeping them
would hold memory the caller has freed.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable

import torch

from hfuse.runtime.launcher import Allocate

POOLED_MAX_BYTES = 1 << 20

Kept = list  # [the buffer returned last or None, the stream it was written on]
PooledBuffer = Callable[[int | None], torch.Tensor]  # the current stream (None: captured) -> a buffer


def _holders(kept: Kept) -> tuple[int, int, int, int]:
    """What holds the tensor of `kept`: Python references, tensors on its storage, references to the
    tensor itself from torch (views, DLPack exports) and weak references."""
    tensor = kept[0]
    storage = torch._C._storage_Use_Count(tensor.untyped_storage()._cdata)
    return sys.getrefcount(tensor), storage, tensor._use_count(), weakref.getweakrefcount(tensor)


def _held_by_the_pool_alone() -> tuple[int, int, int, int] | None:
    """`_holders` of a buffer only the pool holds (a count includes references the counting itself makes,
    which vary between Python and torch versions); None where this torch lacks the counts."""
    if not hasattr(torch.Tensor, "_use_count") or not hasattr(torch._C, "_storage_Use_Count"):
        return None
    return _holders([torch.empty(1), None])


_ALONE = _held_by_the_pool_alone()


def pooled(
    allocate: Allocate, shape: tuple[int, ...], strides: tuple[int, ...], dtype: torch.dtype
) -> PooledBuffer:
    """The buffer of one output for a call on `stream` (`current_stream`'s number): the last one again
    while only the pool holds it and the call runs on the stream that wrote it, else a new one (always a
    new one past POOLED_MAX_BYTES, or while the stream is captured)."""
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if all(shape) else 0
    if extent * dtype.itemsize > POOLED_MAX_BYTES or _ALONE is None:
        return lambda stream: allocate(shape, strides, dtype)
    kept: Kept = [None, None]

    def buffer(stream: int | None) -> torch.Tensor:
        if stream is None:
            return allocate(shape, strides, dtype)
        if kept[1] == stream and kept[0] is not None and _holders(kept) == _ALONE:
            return kept[0]
        kept[0], kept[1] = allocate(shape, strides, dtype), stream
        return kept[0]

    return buffer


def current_stream(device: torch.device) -> Callable[[], int | None]:
    """The current stream of the device a plan runs on, as a number (0 off a GPU, which has none); None
    while that stream is captured into a CUDA graph, whose calls take no pooled buffer (a replay would
    write it after the pool had handed it to a later call). A call asks once and passes the number to
    its buffers and launches."""
    if device.type != "cuda":
        return lambda: 0
    raw_stream, current_device = torch._C._cuda_getCurrentRawStream, torch._C._cuda_getDevice
    capturing = torch._C._cuda_isCurrentStreamCapturing

    def current() -> int | None:
        if capturing():
            return None
        return raw_stream(current_device() if device.index is None else device.index)

    return current
