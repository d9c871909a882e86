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


# float32 lanes per streaming multiprocessor, by compute capability: each does one fused multiply-add (two
# operations) a clock
FP32_LANES_PER_SM = {(7, 0): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128, (9, 0): 128}


@functools.cache
def nominal_peak_flops() -> float | None:
    """Nominal float32 operations a second of the current CUDA device (SMs x lanes x 2 x clock: about
    67e12 on an H200); None without CUDA, or for a device whose lanes per SM this does not know."""
    if not has_cuda():
        return None
    device = torch.cuda.current_device()
    lanes = FP32_LANES_PER_SM.get(torch.cuda.get_device_capability(device))
    if lanes is None:
        return None
    from triton.runtime import driver

    properties = driver.active.utils.get_device_properties(device)
    clock_khz, sms = properties.get("sm_clock_rate", 0), properties.get("multiprocessor_count", 0)
    if not (clock_khz and sms):
        return None
    return sms * lanes * 2 * clock_khz * 1e3
