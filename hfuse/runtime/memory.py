"""Memory a run needs, checked before it allocates; an out-of-memory during a run becomes a LimitError.

The sizes come from the IR: a kernel segment allocates its outputs, a torch segment every tensor it
computes, and validation runs the reference, which computes every tensor of the fusion (views counted
as if copied: an upper bound). On a GPU the total must also fit in the memory free right now.
"""

from __future__ import annotations

import gc
import resource
from collections.abc import Iterable

import torch

from hfuse import settings
from hfuse.errors import LimitError
from hfuse.ir import Fusion
from hfuse.pipeline import Compiled
from hfuse.runtime.device import has_cuda
from hfuse.segment.model import SchedulerKind
from hfuse.units import format_size as size


def run_bytes(compiled: Compiled, *, validating: bool) -> int:
    """Bytes one run of `compiled` allocates on the device, outputs and intermediates."""
    fusion = compiled.scheduled
    allocated = 0
    for group in compiled.segmentation.groups:
        if group.kind is SchedulerKind.ALIAS:
            continue
        if group.kind is SchedulerKind.TORCH:
            allocated += tensor_bytes(fusion, (name for expr in group.exprs for name in expr.outputs))
        else:
            allocated += tensor_bytes(fusion, group.outputs)
    if validating:
        reference = compiled.fusion
        allocated += tensor_bytes(reference, (name for expr in reference.exprs for name in expr.outputs))
    return allocated


def tensor_bytes(fusion: Fusion, names: Iterable[str]) -> int:
    values = fusion.value_map
    return sum(values[name].nbytes for name in set(names) if values[name].is_tensor)


def check_run_memory(needed: int, what: str) -> None:
    """LimitError when `what` would allocate more than HFUSE_MAX_OUTPUT_BYTES or than the GPU has free."""
    limit = settings.MAX_OUTPUT_BYTES.as_bytes()
    if needed > limit:
        raise LimitError(
            f"{what} would allocate {size(needed)}, above the limit of {size(limit)} for one run: "
            f"use smaller inputs, or set {settings.MAX_OUTPUT_BYTES.env} to allow more"
        )
    check_free_device_memory(needed, what)


def check_free_device_memory(needed: int, what: str) -> None:
    """LimitError when a GPU is in use and `needed` bytes do not fit in its free memory (none without one)."""
    if not has_cuda():
        return
    free, total = free_device_bytes()
    if needed > free:
        raise LimitError(
            f"{what} would allocate {size(needed)} on the GPU, but only {size(free)} of its {size(total)} "
            f"are free: use smaller inputs, or run again when other runs are done "
            f"({settings.MAX_OUTPUT_BYTES.env} caps what one run may allocate)"
        )


def free_device_bytes() -> tuple[int, int]:
    """(bytes this process can still allocate, device total): the device's free memory plus what torch's
    caching allocator holds unused."""
    free, total = torch.cuda.mem_get_info()
    return free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated(), total


# How torch's CPU allocator words a failed allocation (a plain RuntimeError, not an OutOfMemoryError).
_CPU_ALLOCATOR_WORDS = ("DefaultCPUAllocator", "can't allocate memory", "not enough memory")


def out_of_memory_detail(err: BaseException) -> str | None:
    """What `err` says in one line when it is an out-of-memory (torch's on the GPU, torch's CPU allocator,
    Python's MemoryError, numpy's), else None."""
    if isinstance(err, torch.cuda.OutOfMemoryError | MemoryError) or (
        isinstance(err, RuntimeError) and any(word in str(err) for word in _CPU_ALLOCATOR_WORDS)
    ):
        return first_line(err)
    return None


def host_limit_note() -> str:
    """Where this process's data is limited (the app's run worker limits its own: hfuse.service.worker), what
    the limit is and which settings make it."""
    limit, _ = resource.getrlimit(resource.RLIMIT_DATA)
    if limit == resource.RLIM_INFINITY:
        return ""
    made_of = (settings.MAX_INPUT_BYTES, settings.MAX_OUTPUT_BYTES, settings.WORKER_OVERHEAD_BYTES)
    return (
        f"; this process may take {size(limit)} of host memory (in the app's run worker: "
        f"{' + '.join(setting.env for setting in made_of)})"
    )


def first_line(err: BaseException) -> str:
    """What an out-of-memory error says, in one line (torch's message goes on for several)."""
    return (str(err) or type(err).__name__).splitlines()[0]


def out_of_memory_error(detail: str, needed: int | None, what: str) -> LimitError:
    """The LimitError for torch's out-of-memory during `what`, made after the run's tensors are gone (call it
    outside the `except` block, so the failed frames are released) and the cached memory is given back,
    so the process can go on running."""
    gc.collect()
    if has_cuda():
        torch.cuda.empty_cache()
        free, total = free_device_bytes()
        now = f"; {size(free)} of {size(total)} are free now"
    else:
        now = host_limit_note()
    wanted = f"; it needs about {size(needed)}" if needed is not None else ""
    return LimitError(
        f"{what} ran out of device memory ({detail}){wanted}{now}. Use smaller "
        f"inputs; {settings.MAX_OUTPUT_BYTES.env} refuses runs above a size before they allocate"
    )
