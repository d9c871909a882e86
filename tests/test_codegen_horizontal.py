"""Horizontal groups: independent sub-kernels in one launch, the grid partitioned among them; and whole
fusions cut by the segmenter, every kernel compared with the reference."""

from __future__ import annotations

import pytest
from codegen_harness import check, generate, planned, whole_group
from test_codegen_pointwise import _seed
from test_codegen_reduction import cross_entropy, layer_norm, rms_norm, softmax
from test_codegen_transpose import permute_cast

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.segment import segment
from hfuse.segment.model import Group, SchedulerKind

F32, BF16 = DataType.Float, DataType.BFloat16


def _branches_of(fusion: Fusion, kinds: list[SchedulerKind]) -> Group:
    """One branch per fusion output (the exprs computing it), all in one horizontal group."""
    producers = {out: e for e in fusion.exprs for out in e.outputs}
    branches = []
    for n, (name, kind) in enumerate(zip(fusion.output_names, kinds, strict=True)):
        exprs, stack = [], [name]
        while stack:
            expr = producers.get(stack.pop())
            if expr is not None and expr not in exprs:
                exprs.append(expr)
                stack.extend(expr.inputs)
        ordered = tuple(e for e in fusion.exprs if e in exprs)
        inputs = tuple(n for n in fusion.inputs if any(n in e.inputs for e in ordered))
        branches.append(planned(Group(n + 1, kind, ordered, inputs, (name,)), fusion))
    return Group(
        0, SchedulerKind.HORIZONTAL, fusion.exprs, fusion.inputs, fusion.output_names, tuple(branches)
    )


def test_seed_as_three_branches_is_one_launch():
    fusion = _seed(batch=2, seq=8, heads=4, head_dim=8)
    group = _branches_of(fusion, [SchedulerKind.POINTWISE] * 3)
    kernel = generate(group, fusion)
    assert kernel.grid == (3,) and kernel.source.count("tl.program_id(0)") == 1
    assert "if pid < 1:" in kernel.source and "elif pid < 2:" in kernel.source
    check(fusion, [group])


def test_branches_of_different_kinds_and_shapes():
    b = FusionBuilder()
    x = b.define_tensor([5, 33], BF16)
    y = b.define_tensor([20, 24], F32)
    z = b.define_tensor([3, 70], F32)
    (top,) = b.add(Op.MAX, [x], {"dims": [1], "keepdim": True, "dtype": F32})
    (shifted,) = b.add(Op.SUB, [x, top])
    (e,) = b.add(Op.EXP, [shifted])
    (flipped,) = b.add(Op.PERMUTE, [y], {"dims": [1, 0]})
    (half,) = b.add(Op.CAST, [flipped], {"dtype": BF16})
    (neg,) = b.add(Op.NEG, [z])
    for out in (e, half, neg):
        b.add_output(out)
    fusion = b.build()
    kinds = [SchedulerKind.NORMALIZATION, SchedulerKind.TRANSPOSE, SchedulerKind.POINTWISE]
    group = _branches_of(fusion, kinds)
    kernel = generate(group, fusion)
    programs = [part["programs"] for part in kernel.config["parts"]]
    assert kernel.grid == (sum(programs),) and len(programs) == 3
    check(fusion, [group], reduction_size=33)


def qk_norm():
    """Two RMS norms of different widths side by side (q and k heads)."""
    b = FusionBuilder()
    outs = []
    for rows, cols in ((8, 32), (4, 16)):
        x = b.define_tensor([rows, cols], BF16)
        (xf,) = b.add(Op.CAST, [x], {"dtype": F32})
        (sq,) = b.add(Op.MUL, [xf, xf])
        (total,) = b.add(Op.SUM, [sq], {"dims": [1], "keepdim": True, "dtype": F32})
        (mean,) = b.add(Op.DIV, [total, b.define_scalar(DataType.Double, float(cols))])
        (rstd,) = b.add(Op.RSQRT, [mean])
        (y,) = b.add(Op.MUL, [xf, rstd])
        (out,) = b.add(Op.CAST, [y], {"dtype": BF16})
        outs.append(out)
    for out in outs:
        b.add_output(out)
    return b.build()


FUSIONS = {
    "seed": (_seed, {}),
    "layer_norm": (lambda: layer_norm(BF16), {}),
    "rms_norm": (lambda: rms_norm(F32), {}),
    "softmax": (lambda: softmax(F32), {}),
    "cross_entropy": (lambda: cross_entropy()[0], {"T1": (0, 30)}),
    "transpose_cast": (lambda: permute_cast([48, 40], [1, 0], F32, BF16), {}),
    "qk_norm": (qk_norm, {}),
}


@pytest.mark.parametrize("name", FUSIONS)
def test_segmented_fusions_match_the_reference(name):
    make, ranges = FUSIONS[name]
    fusion = make()
    groups = [g for g in segment(fusion).groups if g.kind.launches_kernel]
    assert groups
    check(fusion, groups, ranges, reduction_size=48)


def test_segmenter_puts_the_two_norms_in_one_launch():
    fusion = qk_norm()
    (group,) = segment(fusion).groups
    assert group.kind is SchedulerKind.HORIZONTAL
    kernel = generate(group, fusion)
    assert len(kernel.config["parts"]) == 2 and "elif pid <" in kernel.source


def test_whole_group_of_the_seed_matches_its_horizontal_form():
    fusion = _seed()
    flat = generate(whole_group(fusion, SchedulerKind.POINTWISE), fusion)
    split = generate(_branches_of(fusion, [SchedulerKind.POINTWISE] * 3), fusion)
    assert flat.args == split.args == ("T0", "T3", "T6", "T9")


def test_a_cat_piece_chosen_by_the_program_id_loads_under_a_block_mask():
    # exp of [1] beside a cat of a transposed [1, 2, 2, 1]: each program of the cat loads one piece under a
    # mask that is one value for the whole program, which Triton's interpreter refuses unless it is a block
    b = FusionBuilder()
    t0 = b.define_tensor((1,), DataType.Float)
    t1 = b.define_tensor((1, 2, 2, 1), DataType.Float, strides=(4, 1, 2, 1))
    (e,) = b.add(Op.EXP, [t0])
    (c,) = b.add(Op.CAT, [t1, t1], {"dim": 0})
    b.add_output(e)
    b.add_output(c)
    fusion = b.build()
    (group,) = segment(fusion).groups
    assert group.kind is SchedulerKind.HORIZONTAL
    check(fusion, [group])
