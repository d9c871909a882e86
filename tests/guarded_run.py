"""Runs fusions' kernels in Triton's interpreter on guarded tensors (tests/guarded_memory.py), each output
compared with the reference: `python tests/guarded_run.py SEED COUNT`. Each fusion is printed before it
runs, so a kernel that reaches outside a tensor kills the process right after its fusion's text."""

from __future__ import annotations

import sys

import torch
from codegen_harness import load, poisoned
from engine_check import check_against_reference
from guarded_memory import guarded_like
from hypothesis import strategies as st
from random_fusions import SMALL, fusions, random_inputs
from segment_cases import Builder

from hfuse.backends import STRATEGIES
from hfuse.codegen import Options, generate
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.pipeline import compile_fusion
from hfuse.printer import print_fusion
from hfuse.reference import evaluate_values
from hfuse.tools.fuzz.campaign import hypothesis_run

# few rows of many columns: reductions split across programs, a part starting anywhere in a row
SPLIT = Options(
    persistent_max_cols=8, persistent_reread_cols=0, loop_cols=8, row_tile=16, outer_tile=16,
    split_below_programs=64, split_min_cols=16, split_min_part=8, split_min_cols_outer=16,
    split_min_part_outer=8, split_programs=64,
)  # fmt: skip
LAYOUTS = (Options(), SPLIT)


def statistics_of_a_cat() -> Fusion:
    """A row's mean and variance over two pieces of a permuted input: each part of a split row shifts
    its sum by the part's first element, which lies in one piece only."""
    b = Builder()
    x = b.define_tensor((4, 33, 2), DataType.Half, strides=(1, 4, 132))
    t = b.op(Op.TANH, x)
    both = b.op(Op.CAT, t, t, dim=0)
    var, mean = b.add(Op.VAR_MEAN, [both], {"dims": [0, 1, 2], "correction": 0, "keepdim": True})
    b.add_output(b.op(Op.MUL, b.op(Op.SUB, both, mean), b.op(Op.RSQRT, b.op(Op.ADD, var, b.const(1e-5)))))
    return b.build()


def statistics_of_a_pad_of_an_expanded_input() -> Fusion:
    """Column statistics of a pad whose input is expanded along the tile: the shift element's address is
    the same for every lane, and lies in the pad for some rows."""
    b = Builder()
    x = b.define_tensor((4, 2), DataType.BFloat16, strides=(2, 0))
    padded = b.op(Op.PAD, x, b.const(0.5), pad_widths=[2, -1, 1, 1])
    b.add_output(b.add(Op.VAR_MEAN, [padded], {"dims": [0], "correction": 1, "keepdim": True})[1])
    return b.build()


def run_guarded(fusion: Fusion, strategy: str, options: Options, at_end: bool) -> None:
    compiled = compile_fusion(fusion, strategy=strategy, alias_outputs=False)
    scheduled = compiled.scheduled
    inputs = random_inputs(fusion, seed=0)
    expected = evaluate_values(scheduled, inputs)
    guarded = [guarded_like(v, at_end) if isinstance(v, torch.Tensor) else v for v in inputs]
    env: dict[str, object] = dict(zip(scheduled.inputs, guarded, strict=True))
    for group in compiled.segmentation.groups:
        if not group.kind.launches_kernel:
            env.update({name: expected[name] for name in group.outputs})
            continue
        kernel = generate(group, scheduled, options)
        outputs = [guarded_like(poisoned(scheduled.value(n)), at_end) for n in kernel.outputs]
        load(kernel).launch(*(env[name] for name in kernel.inputs), *outputs)
        env.update(zip(kernel.outputs, outputs, strict=True))
    results = [env[out.name] for out in scheduled.outputs]
    check_against_reference(fusion, results, inputs, f"{strategy}, {options}")


def check(fusion: Fusion) -> None:
    print(print_fusion(fusion), flush=True)
    for strategy in STRATEGIES:
        for options in LAYOUTS:
            for at_end in (False, True):
                run_guarded(fusion, strategy, options, at_end)


def main(seed: int, count: int) -> None:
    check(statistics_of_a_cat())
    check(statistics_of_a_pad_of_an_expanded_input())
    hypothesis_run(st.builds(lambda f: f, fusions(SMALL)), count, seed, check)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
