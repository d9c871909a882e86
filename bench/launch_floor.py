"""What one kernel launch costs on this GPU, measured as the suite measures its candidates (GPU only).

    PYTHONPATH=. python3 bench/launch_floor.py

A Triton kernel of one program that touches no memory, and the same launched twice in a row (a split
reduction's two launches): the GPU time the profiler gives one call's kernels (`device us`, the suite's
device column), `do_bench`'s median with L2 flushed before each call (`kernel us`, the suite's first
column), and the host's wall time per call in a loop (`e2e us`). The few-row target of the extended suite
reads: device time within 2x of a clone of the same bytes plus one launch; this is the launch.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from hfuse.service.measure import device_us, kernel_us, loop_us


@triton.jit
def _nothing(flag):
    if flag == 12345:  # never: the kernel only starts and ends
        tl.device_print("unreachable")


def _one() -> None:
    _nothing[(1,)](0)


def _two() -> None:
    _nothing[(1,)](0)
    _nothing[(1,)](0)


def main() -> None:
    print(f"{'launches':<10} {'device us':>10} {'kernel us':>10} {'e2e us':>10}")
    for name, fn in (("1", _one), ("2", _two)):
        fn()
        torch.cuda.synchronize()
        device, kernel, e2e = device_us(fn, calls=50), kernel_us(fn), loop_us(fn, 5000)
        print(f"{name:<10} {device:>10.2f} {kernel:>10.2f} {e2e:>10.2f}")


if __name__ == "__main__":
    main()
