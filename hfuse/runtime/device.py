"""The device kernels run on: a CUDA GPU when there is one, else Triton's interpreter on CPU tensors."""

from __future__ import annotations

import functools
import os
import threading

import torch

# One fusion runs (and is timed) on the GPU at a time, so timings of concurrent calls do not overlap.
GPU_LOCK = threading.RLock()


def has_cuda() -> bool:
    return torch.cuda.is_available()


def run_device() -> torch.device:
    return torch.device("cuda") if has_cuda() else torch.device("cpu")


def device_name() -> str:
    if has_cuda():
        return torch.cuda.get_device_name()
    return "cpu (Triton interpreter)"


def use_interpreter_without_cuda() -> None:
    """Without CUDA, kernels run in Triton's interpreter. `@triton.jit` reads TRITON_INTERPRET when it
    decorates, so this must run before any generated module is imported."""
    if not has_cuda():
        os.environ["TRITON_INTERPRET"] = "1"


def peak_from_clock(memory_clock_khz: int, bus_width_bits: int) -> float:
    """Nominal DRAM bandwidth in GB/s: 2 transfers a clock (DDR) x clock x bus width, as nvFuser has it."""
    return 2 * memory_clock_khz * 1000 * bus_width_bits / 8 / 1e9


@functools.cache
def nominal_peak_bandwidth_gbs() -> float | None:
    """Nominal peak of the current CUDA device (4814 GB/s on an H200); None without CUDA."""
    if not has_cuda():
        return None
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    clock_khz = getattr(props, "memory_clock_rate", 0)
    bus_bits = getattr(props, "memory_bus_width", 0)
    if not (clock_khz and bus_bits):
        from triton.runtime import driver

        triton_props = driver.active.utils.get_device_properties(torch.cuda.current_device())
        clock_khz, bus_bits = triton_props.get("mem_clock_rate", 0), triton_props.get("mem_bus_width", 0)
    if not (clock_khz and bus_bits):
        return None
    return peak_from_clock(clock_khz, bus_bits)
