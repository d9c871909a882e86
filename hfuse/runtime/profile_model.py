"""The profile of one fusion run, shaped like nvFuser's FusionProfile."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KernelProfile:
    name: str
    segment_id: int
    scheduler: str
    grid: tuple[int, ...]
    num_warps: int
    time_ms: float | None  # None where not measured (no GPU, or no kernel)
    compile_time_ms: float
    input_bytes: int
    output_bytes: int
    effective_bandwidth_gbs: float | None
    percentage_peak_bandwidth: float | None
    launches_kernel: bool = True  # False for alias and torch segments
    launches: int = 1  # CUDA kernels the segment launches: 2 or 3 for a split reduction, 0 with no kernel
    flops: int = 0  # the arithmetic of the segment's ops (`hfuse.flops`)


@dataclass(frozen=True, slots=True)
class FusionProfile:
    backend: str
    device: str
    segments: int  # kernels launched
    segment_profiles: tuple[KernelProfile, ...]  # every segment: kernels, and alias and torch segments
    kernel_time_ms: float | None
    host_time_ms: float
    compile_time_ms: float
    input_bytes: int  # fusion inputs, elements actually read, once
    output_bytes: int  # fusion outputs written by kernels
    effective_bandwidth_gbs: float | None
    percentage_peak_bandwidth: float | None
    peak_bandwidth_gbs: float | None
    times_meaningful: bool  # False in Triton's interpreter on CPU
    validated: bool
    max_abs_error: float | None
    cache_hit: bool = False  # the call found its compiled kernels cached: compile_time_ms is 0
    # The first run's stages in order (passes, segment, codegen, load kernels, first launches, reference,
    # compare) and their milliseconds; empty for a later run.
    stages_ms: tuple[tuple[str, float], ...] = ()
    flops: int = 0  # the arithmetic of the fusion's ops, once each (`hfuse.flops`)
    peak_flops: float | None = None  # the device's nominal float32 operations a second; None off a GPU

    @property
    def kernel_profiles(self) -> tuple[KernelProfile, ...]:
        """The segments that launch generated kernels, as nvFuser lists them: none for a fusion of views."""
        return tuple(k for k in self.segment_profiles if k.launches_kernel)
