"""How segmentation time grows with the size of a fusion.

    PYTHONPATH=. python3 bench/segment_scaling.py [--sizes 100,500,...] [--families chain,...]
                                                  [--no-compile] [--out FILE.json]

Builds fusions of about 100 to 4,000 ops in three families and prints, per fusion, its ops, groups and
the seconds that segmentation takes (the passes are run first and not counted), then the seconds of
the whole compile (passes + segment + codegen):

- transformer: blocks of RMSNorm, RoPE (slices, cat, rotate-half), a softmax and a residual add, as
  Thunder prints a fusion region between matmuls: several streams side by side (q, k, v-like), each
  a sequence of blocks, every block's reciprocal RMS saved as an output for the backward;
- wide: many independent chains reading one input, every third ending in a row normalization;
- chain: one long pointwise chain.

Times are the fastest of `--repeats` runs, each on a freshly built fusion (nothing cached between runs),
as wall time and as CPU time of this process (which other work on a shared machine barely moves).
`--out` also writes the curve as JSON with the machine, the date and the versions.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import HfuseError
from hfuse.ir import Fusion, Op, Value
from hfuse.passes import run_passes
from hfuse.pipeline import compile_fusion
from hfuse.segment import segment

F32, BF16 = DataType.Float, DataType.BFloat16
SIZES = (100, 250, 500, 1000, 1500, 2000, 3000, 4000)
ROWS, COLS = 32, 64


class Blocks(FusionBuilder):
    """FusionBuilder with the few layers the fusions are made of."""

    def op(self, op: Op, *inputs: Value, **attrs) -> Value:
        (out,) = self.add(op, list(inputs), attrs)
        return out

    def scalar(self, x: Value, op: Op, value: float) -> Value:
        return self.op(op, x, self.define_scalar(DataType.Double, value))

    def bcast(self, x: Value, shape: tuple[int, ...], dims: list[int]) -> Value:
        return self.op(Op.BROADCAST_IN_DIM, x, shape=list(shape), broadcast_dims=dims)

    def rows_back(self, stat: Value, like: Value) -> Value:
        return self.bcast(stat, like.shape, list(range(like.rank - 1)))

    def rms_norm(self, x: Value, weight: Value) -> tuple[Value, Value]:
        """(normalized x, the reciprocal RMS of each row)."""
        squares = self.op(Op.SUM, self.op(Op.MUL, x, x), dims=[x.rank - 1], keepdim=False)
        rstd = self.op(Op.RSQRT, self.scalar(self.scalar(squares, Op.DIV, float(x.shape[-1])), Op.ADD, 1e-6))
        scaled = self.op(Op.MUL, x, self.rows_back(rstd, x))
        w = self.bcast(self.op(Op.CAST, weight, dtype=F32), x.shape, [x.rank - 1])
        return self.op(Op.MUL, scaled, w), rstd

    def rope(self, x: Value, cos: Value, sin: Value) -> Value:
        half, lead = x.shape[-1] // 2, list(x.shape[:-1])
        first = self.op(Op.SLICE, x, starts=[0, 0], ends=[*lead, half], strides=[1, 1])
        second = self.op(Op.SLICE, x, starts=[0, half], ends=[*lead, x.shape[-1]], strides=[1, 1])
        rotated = self.op(Op.CAT, self.op(Op.NEG, second), first, dim=x.rank - 1)
        return self.op(Op.ADD, self.op(Op.MUL, x, cos), self.op(Op.MUL, rotated, sin))

    def softmax(self, x: Value) -> Value:
        dim = x.rank - 1
        top = self.op(Op.MAX, x, dims=[dim], keepdim=False)
        e = self.op(Op.EXP, self.op(Op.SUB, x, self.rows_back(top, x)))
        return self.op(Op.DIV, e, self.rows_back(self.op(Op.SUM, e, dims=[dim], keepdim=False), e))


def transformer(ops: int) -> Fusion:
    """`streams` residual streams side by side, each a sequence of norm + RoPE + softmax blocks."""
    b = Blocks()
    streams = 4
    depth = max(1, round(ops / (streams * 28)))  # a block is 28 ops
    shape = (ROWS, COLS)
    cos_in, sin_in = b.define_tensor(shape, BF16), b.define_tensor(shape, BF16)
    cos, sin = b.op(Op.CAST, cos_in, dtype=F32), b.op(Op.CAST, sin_in, dtype=F32)
    for _ in range(streams):
        hidden = b.op(Op.CAST, b.define_tensor(shape, BF16), dtype=F32)
        weight = b.define_tensor((COLS,), BF16)
        for _ in range(depth):
            normed, rstd = b.rms_norm(hidden, weight)
            b.add_output(rstd)
            attended = b.softmax(b.scalar(b.rope(normed, cos, sin), Op.MUL, 0.125))
            hidden = b.op(Op.ADD, hidden, b.op(Op.CAST, b.op(Op.CAST, attended, dtype=BF16), dtype=F32))
        b.add_output(b.op(Op.CAST, hidden, dtype=BF16))
    return b.build()


def wide(ops: int) -> Fusion:
    """Chains of 10 ops reading one input; every third ends in a softmax of its rows."""
    b = Blocks()
    x = b.define_tensor((ROWS, COLS), F32)
    for chain in range(max(1, round(ops * 3 / 31))):  # 10, 10 and 11 ops
        value = x
        for step in range(10 if chain % 3 else 4):
            value = b.scalar(value, Op.MUL, 1.0 + 0.01 * step) if step % 2 else b.op(Op.TANH, value)
        if not chain % 3:
            value = b.softmax(value)
        b.add_output(value)
    return b.build()


def chain(ops: int) -> Fusion:
    """One pointwise chain: scale, tanh, shift, in turn."""
    b = Blocks()
    value = b.define_tensor((ROWS, COLS), F32)
    for step in range(ops):
        match step % 3:
            case 0:
                value = b.scalar(value, Op.MUL, 0.99)
            case 1:
                value = b.op(Op.TANH, value)
            case _:
                value = b.scalar(value, Op.ADD, 0.01)
    b.add_output(value)
    return b.build()


FAMILIES: dict[str, Callable[[int], Fusion]] = {"transformer": transformer, "wide": wide, "chain": chain}


@dataclass(frozen=True, slots=True)
class Timing:
    wall: float  # seconds, the fastest run
    cpu: float  # seconds of this process's CPU time, the fastest run


def timed(step: Callable[[], object], repeats: int, prepare: Callable[[], object]) -> tuple[Timing, object]:
    """The fastest of `repeats` runs of `step(prepare())`, and the last result."""
    wall = cpu = float("inf")
    result = None
    for _ in range(repeats):
        argument = prepare()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = step(argument)
        wall, cpu = min(wall, time.perf_counter() - start), min(cpu, time.process_time() - start_cpu)
    return Timing(wall, cpu), result


def time_segment(make: Callable[[], Fusion], repeats: int) -> tuple[Timing, int, int]:
    """(the segmentation's time, ops, groups); the passes run first, untimed."""
    timing, segmentation = timed(
        lambda passed: (passed, segment(passed.fusion, alias=passed.aliases)),
        repeats,
        lambda: run_passes(make()),
    )
    passed, segmentation = segmentation
    return timing, len(passed.fusion.exprs), len(segmentation.groups)


def time_compile(make: Callable[[], Fusion], repeats: int) -> Timing | str:
    """The time of the whole compile, or why it failed."""
    try:
        return timed(compile_fusion, repeats, make)[0]
    except HfuseError as err:
        return f"fails: {str(err).rsplit(': ', 1)[-1]}"


def machine() -> dict[str, object]:
    return {
        "date": datetime.date.today().isoformat(),
        "cpu": _cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
    }


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            return next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="target op counts")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true", help="time the segmentation only")
    parser.add_argument("--out", help="also write the curve as JSON here")
    args = parser.parse_args(argv)
    rows = []
    header = ("family", "ops", "groups", "segment s", "(cpu)", "compile s", "(cpu)")
    print("{:<12} {:>6} {:>6} {:>10} {:>8} {:>10} {:>8}".format(*header), flush=True)
    for family in args.families.split(","):
        for size in map(int, args.sizes.split(",")):
            make = functools.partial(FAMILIES[family], size)
            seconds, ops, groups = time_segment(make, args.repeats)
            whole = None if args.no_compile else time_compile(make, args.repeats)
            if isinstance(whole, Timing):
                shown = f"{whole.wall:>10.3f} {whole.cpu:>8.3f}"
            else:
                shown = f"{whole or '-':>10}"
            print(
                f"{family:<12} {ops:>6} {groups:>6} {seconds.wall:>10.3f} {seconds.cpu:>8.3f} {shown}",
                flush=True,
            )
            rows.append(
                {
                    "family": family,
                    "ops": ops,
                    "groups": groups,
                    "segment_s": asdict(seconds),
                    "compile_s": asdict(whole) if isinstance(whole, Timing) else whole,
                }
            )
    if args.out:
        with open(args.out, "w") as out:
            json.dump({"machine": machine(), "curve": rows}, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
