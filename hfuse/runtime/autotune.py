"""Optional autotuning of launch configurations (HFUSE_AUTOTUNE=1, GPU only).

The code generator's heuristics (`hfuse.codegen.Options`) need no tuning and are what CPU runs and
first runs use. With autotuning on, each kernel is generated again under a few candidate options;
the distinct sources are timed on the GPU and the fastest kept. The choice is stored in
HFUSE_CACHE_DIR/autotune/<key>.json, the key being a hash of the fusion (which holds its shapes,
dtypes and strides), the kernel's group and the GPU's name, so a later process reuses it untimed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from hfuse import settings
from hfuse.codegen import Options, generate
from hfuse.codegen.model import KernelSource
from hfuse.ir import Value
from hfuse.pipeline import Compiled
from hfuse.printer import print_fusion
from hfuse.runtime.cache_file import write_atomically
from hfuse.segment.model import Group

Timer = Callable[[KernelSource, list[Value]], float]  # a kernel's time given its arguments; smaller is faster

CANDIDATES = (
    Options(),
    Options(pointwise_block=512),
    Options(pointwise_block=2048),
    Options(transpose_tile=32),
    Options(row_tile=2048),
    Options(row_tile=8192),
    Options(loop_cols=1024),
    Options(loop_cols=2048),
    Options(persistent_reread_cols=0),
    Options(store_tile_rows=0),
    Options(store_tile_rows=32),
    Options(warps=4),
    Options(warps=8),
)


def tune(compiled: Compiled, timer: Timer | None = None, device: str | None = None) -> Compiled:
    """`compiled` with each kernel regenerated under the fastest candidate options."""
    if not compiled.kernels:
        return compiled
    if timer is None or device is None:
        from hfuse.runtime.device import device_name

        timer, device = timer or gpu_time_us, device or device_name()
    fusion = compiled.scheduled
    fusion_key = hashlib.sha256(print_fusion(fusion).encode()).hexdigest()
    kernels = []
    for kernel in compiled.kernels:
        group = next(g for g in compiled.segmentation.groups if g.id == kernel.group_id)
        kernels.append(_tuned(group, compiled, _cache_path(fusion_key, group.id, device), timer))
    return dataclasses.replace(compiled, kernels=tuple(kernels))


def _tuned(group: Group, compiled: Compiled, path: Path, timer: Timer) -> KernelSource:
    fusion = compiled.scheduled
    chosen = _read_choice(path)
    if chosen is not None:
        return generate(group, fusion, chosen)
    default = compiled.kernel_of(group)
    assert default is not None
    args = [fusion.value(name) for name in default.args]
    if any(value.is_tensor and value.rank == 0 for value in args):
        return default  # such an argument reaches the kernel as a host number: nothing to time it with
    by_source: dict[str, tuple[Options, KernelSource]] = {}
    for options in CANDIDATES:
        kernel = generate(group, fusion, options)
        by_source.setdefault(kernel.source, (options, kernel))
    timed = [(timer(kernel, args), options, kernel) for options, kernel in by_source.values()]
    _, best_options, best_kernel = min(timed, key=lambda entry: entry[0])
    _write_choice(path, best_options, {json.dumps(dataclasses.asdict(o)): t for t, o, _ in timed})
    return best_kernel


def _cache_path(fusion_key: str, group_id: int, device: str) -> Path:
    key = hashlib.sha256(f"{fusion_key}|{group_id}|{device}".encode()).hexdigest()
    return settings.CACHE_DIR.as_path() / "autotune" / f"{key}.json"


def _read_choice(path: Path) -> Options | None:
    """The stored options, or None when there are none or they no longer fit `Options`."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        return Options(**stored["options"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_choice(path: Path, options: Options, times: dict[str, float]) -> None:
    """Written atomically, so a reader never sees half a file."""
    record = {"options": dataclasses.asdict(options), "times": times}
    with contextlib.suppress(OSError):  # an unwritable cache only means tuning again next time
        write_atomically(path, json.dumps(record, indent=1))


def gpu_time_us(kernel: KernelSource, values: list[Value]) -> float:
    """Median GPU time of the kernel on synthetic arguments (`synthetic_run`)."""
    from hfuse.runtime.timing import kernel_ms

    return kernel_ms(synthetic_run(kernel, values)) * 1e3


def synthetic_run(kernel: KernelSource, values: list[Value]) -> Callable[[], object]:
    """The kernel's `run()` on synthetic arguments: random floats, zero integers (every index in range),
    outputs allocated as generated; launched once (checked) before it is returned."""
    import torch

    from hfuse.runtime.kernel_cache import load_kernel

    module = load_kernel(kernel)
    args = [_synthetic(value) for value in values]
    module.launch(*args)
    torch.cuda.synchronize()
    return lambda: module.run(*args)


def _synthetic(value: Value) -> object:
    import torch

    if value.is_scalar:
        return 1.0 if value.dtype.is_float else 0
    buffer = torch.empty_strided(value.shape, value.strides, dtype=value.dtype.torch, device="cuda")
    if value.dtype.is_float:
        return buffer.normal_()
    return buffer.zero_()
