"""Kernel time of long reductions over few rows, in one launch and split in two (GPU only).

    PYTHONPATH=. python3 bench/split_reductions.py

For each case: microseconds of the one-launch kernel (splitting turned off through `Options`) and of
the split pair that the default heuristics choose, on the synthetic arguments autotuning uses, with
the bandwidth of the split pair over the bytes of the input.
"""

from __future__ import annotations

import math

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options, generate
from hfuse.dtypes import DataType
from hfuse.ir import Op
from hfuse.pipeline import compile_fusion
from hfuse.runtime.autotune import gpu_time_us

CASES = {
    "sum [4096, 4096] fp32, all dims": ([4096, 4096], DataType.Float, Op.SUM, [0, 1]),
    "sum [8, 4194304] fp32, dim 1": ([8, 1 << 22], DataType.Float, Op.SUM, [1]),
    "sum [4194304, 8] fp32, dim 0": ([1 << 22, 8], DataType.Float, Op.SUM, [0]),
    "max [4096, 4096] bf16, all dims": ([4096, 4096], DataType.BFloat16, Op.MAX, [0, 1]),
    "var_mean [4096, 4096] fp32, all dims": ([4096, 4096], DataType.Float, Op.VAR_MEAN, [0, 1]),
}


def measure(shape: list[int], dtype: DataType, op: Op, dims: list[int]) -> tuple[float, float, int]:
    b = FusionBuilder()
    x = b.define_tensor(shape, dtype)
    attrs = {"dims": dims, "correction": 1} if op is Op.VAR_MEAN else {"dims": dims}
    for out in b.add(op, [x], attrs):
        b.add_output(out)
    compiled = compile_fusion(b.build())
    (kernel,) = compiled.kernels
    group = next(g for g in compiled.segmentation.groups if g.id == kernel.group_id)
    values = [compiled.scheduled.value(n) for n in kernel.args]
    whole = generate(group, compiled.scheduled, Options(split_below_programs=0))
    assert whole.launches == 1 and kernel.launches == 2, (whole.launches, kernel.launches)
    return gpu_time_us(whole, values), gpu_time_us(kernel, values), math.prod(shape) * dtype.itemsize


def main() -> None:
    print(f"{'case':<40} {'one launch us':>14} {'split us':>9} {'split GB/s':>11}")
    for name, case in CASES.items():
        whole_us, split_us, nbytes = measure(*case)
        print(f"{name:<40} {whole_us:>14.1f} {split_us:>9.1f} {nbytes / split_us / 1e3:>11.0f}")


if __name__ == "__main__":
    main()
