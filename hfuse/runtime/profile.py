"""The profile of one run: per segment and per fusion, bytes from the IR and time from the device."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hfuse.flops import flops
from hfuse.runtime.bytes import fusion_bytes, segment_bytes
from hfuse.runtime.device import device_name, has_cuda, nominal_peak_bandwidth_gbs, nominal_peak_flops
from hfuse.runtime.profile_model import FusionProfile, KernelProfile
from hfuse.runtime.timing import kernel_ms

if TYPE_CHECKING:
    from hfuse.runtime.executor import Plan, Rerun


def build_profile(
    plan: Plan, reruns: list[Rerun | None], host_ms: float, cache_hit: bool, backend: str
) -> FusionProfile:
    """Times every segment again (CUDA only), then assembles the profile. A segment's time covers all of
    its launches (all of a split reduction's). On CPU nothing is timed: the interpreter's times say
    nothing about a GPU."""
    compiled = plan.compiled
    fusion, groups = compiled.scheduled, compiled.segmentation.groups
    if plan.segment_bytes is None:
        plan.segment_bytes = tuple(segment_bytes(fusion, group) for group in groups)
        plan.fusion_bytes = fusion_bytes(fusion, groups)
    timed = has_cuda()
    peak = nominal_peak_bandwidth_gbs()
    codegen_ms = {k.group_id: ms for k, ms in zip(compiled.kernels, compiled.kernel_codegen_ms, strict=True)}
    kernels = []
    for segment, rerun, (reads, writes) in zip(plan.segments, reruns, plan.segment_bytes, strict=True):
        group = segment.group
        kernel = compiled.kernel_of(group)
        time_ms = kernel_ms(rerun) if timed and rerun is not None else None
        compile_ms = (
            0.0 if cache_hit else codegen_ms.get(group.id, 0.0) + plan.first_launch_ms.get(group.id, 0.0)
        )
        gbs = bandwidth_gbs(reads + writes, time_ms)
        kernels.append(
            KernelProfile(
                name=segment.kernel_name,
                segment_id=group.id,
                scheduler=group.kind.value,
                grid=kernel.grid if kernel else (),
                num_warps=kernel.num_warps if kernel else 0,
                time_ms=time_ms,
                compile_time_ms=compile_ms,
                input_bytes=reads,
                output_bytes=writes,
                effective_bandwidth_gbs=gbs,
                percentage_peak_bandwidth=percent_of(gbs, peak),
                launches_kernel=group.kind.launches_kernel,
                launches=kernel.launches if kernel else 0,
                flops=flops(fusion, group.exprs),
            )
        )
    times = [k.time_ms for k in kernels if k.time_ms is not None]
    kernel_time_ms = sum(times) if times else None
    reads, writes = plan.fusion_bytes
    gbs = bandwidth_gbs(reads + writes, kernel_time_ms)
    first_launches = sum(plan.first_launch_ms.values()) + plan.stage_ms.get("compile kernels", 0.0)
    return FusionProfile(
        backend=backend,
        device=device_name(),
        segments=compiled.kernel_count,
        segment_profiles=tuple(kernels),
        kernel_time_ms=kernel_time_ms,
        host_time_ms=host_ms,
        compile_time_ms=0.0 if cache_hit else plan.prepare_ms + first_launches,
        input_bytes=reads,
        output_bytes=writes,
        effective_bandwidth_gbs=gbs,
        percentage_peak_bandwidth=percent_of(gbs, peak),
        peak_bandwidth_gbs=peak,
        times_meaningful=timed,
        validated=plan.validated,
        max_abs_error=plan.max_abs_error,
        cache_hit=cache_hit,
        stages_ms=() if cache_hit else tuple(plan.stage_ms.items()),
        flops=flops(fusion),
        peak_flops=nominal_peak_flops(),
    )


def bandwidth_gbs(nbytes: int, time_ms: float | None) -> float | None:
    if time_ms is None or time_ms <= 0:
        return None
    return nbytes / time_ms * 1e-6


def percent_of(gbs: float | None, peak: float | None) -> float | None:
    if gbs is None or peak is None:
        return None
    return gbs / peak * 100
