"""Segmentation of the benchmark fusions: kernel counts, kinds, iteration spaces, boundary reasons,
and that running the groups one after another computes what the whole fusion computes."""

from __future__ import annotations

import pytest
import segment_cases as cases
import torch
from segment_cases import F32, Builder, random_inputs, run_groups, segment_fusion

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Op
from hfuse.reference import evaluate
from hfuse.segment import can_fuse, can_share_launch, segment
from hfuse.segment.graph import make_group
from hfuse.segment.model import IterSpace, SchedulerKind

P, T, R, N, H, A, X = (
    SchedulerKind.POINTWISE,
    SchedulerKind.TRANSPOSE,
    SchedulerKind.REDUCTION,
    SchedulerKind.NORMALIZATION,
    SchedulerKind.HORIZONTAL,
    SchedulerKind.ALIAS,
    SchedulerKind.TORCH,
)

# (fusion, strategy, alias outputs, kernels launched, kinds of the groups in execution order)
SUITE = [
    ("seed_aliased", cases.qkv_split, "hfuse", True, 0, [A]),
    ("seed_copied", cases.qkv_split, "hfuse", False, 1, [P]),
    ("layer_norm", cases.layer_norm, "hfuse", True, 1, [N]),
    ("rms_norm", cases.rms_norm, "hfuse", True, 1, [N]),
    ("softmax", cases.softmax, "hfuse", True, 1, [N]),
    ("masked_softmax", cases.masked_softmax, "hfuse", True, 1, [N]),
    ("transpose_cast", cases.transpose_cast, "hfuse", True, 1, [T]),
    ("bias_gelu", cases.bias_gelu, "hfuse", True, 1, [P]),
    ("swiglu", cases.swiglu, "hfuse", True, 1, [P]),
    ("cross_entropy", cases.cross_entropy, "hfuse", True, 2, [N, R]),
    ("rope_same_shapes", cases.rope, "hfuse", True, 1, [P]),
    ("rope_gqa", lambda: cases.rope(k_shape=(2, 2, 16, 8)), "hfuse", True, 1, [H]),
    ("cat_of_slices", cases.cat_of_slices, "hfuse", True, 1, [P]),
    ("qk_norm", cases.qk_norm, "hfuse", True, 1, [H]),
    ("matmul_gelu", cases.matmul_gelu, "hfuse", True, 1, [X, P]),
    ("column_normalize", cases.column_normalize, "hfuse", True, 1, [N]),
    ("seed_naive", cases.qkv_split, "naive", True, 3, [P, P, P]),
]


@pytest.mark.parametrize(
    ("build", "strategy", "alias_outputs", "kernels", "kinds"),
    [case[1:] for case in SUITE],
    ids=[case[0] for case in SUITE],
)
def test_benchmark_fusions_segment_into_the_expected_kernels(build, strategy, alias_outputs, kernels, kinds):
    _, seg = segment_fusion(build(), strategy, alias_outputs)
    assert [g.kind for g in seg.groups] == kinds
    assert seg.kernel_count == kernels


SMALL_SEED = (2, 4, 24)


@pytest.mark.parametrize(
    ("build", "strategy", "alias_outputs"),
    [
        (cases.qkv_split, "hfuse", True),
        (cases.qkv_split, "naive", True),
        *[(c[1], c[2], c[3]) for c in SUITE[2:]],
    ],
    ids=["seed_aliased", "seed_naive", *[c[0] for c in SUITE[2:]]],
)
def test_groups_run_in_order_compute_the_fusion(build, strategy, alias_outputs):
    fusion = build(SMALL_SEED, heads=2) if build is cases.qkv_split else build()
    passes, seg = segment_fusion(fusion, strategy, alias_outputs)
    inputs = random_inputs(passes.fusion)
    for got, want in zip(run_groups(passes.fusion, seg, inputs), evaluate(fusion, inputs), strict=True):
        torch.testing.assert_close(got, want, equal_nan=True)


def test_cross_entropy_picks_the_target_inside_the_normalization():
    _, seg = segment_fusion(cases.cross_entropy())
    first, mean = seg.groups
    assert first.exprs[-1].op is Op.TAKE_ALONG_AXIS
    (boundary,) = seg.boundaries
    assert first.outputs == (boundary.tensor,) == mean.inputs
    assert "a reduction followed by a reduction of its result over another axis needs a grid-wide sync" in (
        boundary.reason
    )


def test_large_cross_entropy_writes_one_value_per_row_not_the_log_softmax():
    import hfuse
    from hfuse.examples import get_example

    script = hfuse.load(get_example("cross_entropy", "large").text, device="meta")
    compiled = hfuse.compile(script.fusion)
    assert compiled.kernel_count == 2
    first = compiled.segmentation.groups[0]
    assert [compiled.scheduled.value(n).shape for n in first.outputs] == [(4096, 1)]


def _gather_of_a_normalized_row(index_extent: int):
    b = Builder()
    x, index = b.define_tensor((8, 6), F32), b.define_tensor((8, index_extent), DataType.Int)
    b.add_output(b.op(Op.TAKE_ALONG_AXIS, b.softmax(x, 1), index, dim=1))
    return b.build()


def test_a_gather_of_several_elements_per_row_still_goes_through_memory():
    _, seg = segment_fusion(_gather_of_a_normalized_row(2))
    assert seg.kernel_count == 2
    assert "only elementwise ops (and a gather of one element per row" in seg.boundaries[0].reason
    _, seg = segment_fusion(_gather_of_a_normalized_row(1))
    assert seg.kernel_count == 1


def test_seed_aliases_are_views_with_the_offsets_of_the_three_slices():
    _, seg = segment_fusion(cases.qkv_split())
    assert [(a.input, a.offset, a.shape, a.strides) for a in seg.aliases] == [
        ("T0", i * 1024, (16, 16, 128, 64), (393216, 64, 3072, 1)) for i in range(3)
    ]
    assert seg.groups[0].outputs == tuple(a.output for a in seg.aliases)


def test_seed_without_aliases_is_one_kernel_reading_the_input_once():
    _, seg = segment_fusion(cases.qkv_split(), alias_outputs=False)
    (group,) = seg.groups
    assert group.inputs == ("T0",)
    assert len(group.outputs) == 3
    assert group.space == IterSpace((16, 16, 128, 64))


def test_naive_strategy_gives_each_chain_its_own_kernel_and_says_so():
    b = Builder()
    x = b.define_tensor((4, 8), F32)
    e = b.op(Op.EXP, x)
    b.add_output(b.op(Op.LOG, e))
    b.add_output(b.op(Op.SIN, e))
    _, seg = segment_fusion(b.build(), "naive")
    assert seg.kernel_count == 3
    assert all("naive strategy" in bd.reason for bd in seg.boundaries)
    _, merged = segment_fusion(b.build(), "hfuse")
    assert merged.kernel_count == 1


def test_spaces_record_rows_and_reduced_dims():
    _, seg = segment_fusion(cases.masked_softmax())
    space = seg.groups[0].space
    assert (space.outer_shape, space.reduced_shape, space.reduced_dims) == ((2, 2, 16), (16,), (3,))
    _, seg = segment_fusion(cases.qk_norm())
    assert [b.space.shape for b in seg.groups[0].branches] == [(8, 4, 16), (8, 2, 16)]
    assert [b.id for b in seg.groups[0].branches] == [1, 2]


ROWS = IterSpace((16, 64), (1,))
# (fusion, each kernel's plan: its space and its outputs holding one value per row, branches in order)
PLANS = [
    ("layer_norm_saves_mean_and_rstd", cases.layer_norm, [(ROWS, ("T4", "T6"))]),
    ("softmax", cases.softmax, [(ROWS, ())]),
    ("cross_entropy", cases.cross_entropy, [(ROWS, ("T11",)), (IterSpace((16, 1), (0, 1)), ("T14",))]),
    (
        "qk_norm_branches",
        cases.qk_norm,
        [(IterSpace((8, 4, 16), (2,)), ()), (IterSpace((8, 2, 16), (2,)), ())],
    ),
    ("transpose_cast", cases.transpose_cast, [(IterSpace((32, 64)), ())]),
    ("matmul_gelu", cases.matmul_gelu, [(IterSpace((16, 64)), ())]),
]


@pytest.mark.parametrize(("build", "plans"), [case[1:] for case in PLANS], ids=[case[0] for case in PLANS])
def test_kernel_groups_carry_the_plan_code_generation_follows(build, plans):
    _, seg = segment_fusion(build())
    kernels = [k for g in seg.groups if g.kind.launches_kernel for k in (g.branches or (g,))]
    assert [(k.space, k.row_outputs) for k in kernels] == plans
    assert all(set(k.row_outputs) <= set(k.outputs) for k in kernels)


def _two_reductions():
    b = Builder()
    x = b.define_tensor((8, 6), F32)
    b.add_output(b.sum(x, [1]))
    b.add_output(b.sum(x, [0]))
    return b.build()


def _reduction_of_reduction():
    b = Builder()
    x = b.define_tensor((8, 6), F32)
    b.add_output(b.sum(b.sum(x, [1]), [0]))
    return b.build()


def _segment_set():
    b = Builder()
    x = b.define_tensor((8, 6), F32)
    b.add_output(b.op(Op.LOG, b.op(Op.SEGMENT_SET, b.op(Op.EXP, x))))
    return b.build()


def _row_broadcast_on_wrong_axis():
    b = Builder()
    x = b.define_tensor((8, 8), F32)
    b.add_output(b.op(Op.SUB, x, b.sum(x, [1])))  # numpy alignment puts the row sums along dim 1
    return b.build()


def _permuted_softmax():
    b = Builder()
    x = b.define_tensor((8, 6), F32)
    b.add_output(b.op(Op.PERMUTE, b.softmax(x, 1), dims=[1, 0]))
    return b.build()


def _two_shapes_from_one_value():
    b = Builder()
    x = b.define_tensor((8, 6), F32)
    e = b.op(Op.EXP, x)
    b.add_output(e)
    b.add_output(b.slice(b.op(Op.SIN, e), [0, 0], [8, 3]))
    return b.build()


BOUNDARIES = [
    ("reduction_of_reduction", _reduction_of_reduction, 2, "needs a grid-wide sync"),
    ("segment_set", _segment_set, 2, "SEGMENT_SET asks for a boundary here"),
    ("row_on_wrong_axis", _row_broadcast_on_wrong_axis, 2, "along the wrong axes"),
    ("permuted_softmax", _permuted_softmax, 2, "follow a reduction in one kernel, so T7 goes through global"),
    ("two_shapes", _two_shapes_from_one_value, 2, "have different shapes"),
    (
        "matmul",
        cases.matmul_gelu,
        1,
        "T2 is produced by a torch op (matmul); generated kernels cannot call it",
    ),
]


@pytest.mark.parametrize(
    ("build", "kernels", "reason"), [c[1:] for c in BOUNDARIES], ids=[c[0] for c in BOUNDARIES]
)
def test_every_boundary_says_why(build, kernels, reason):
    fusion = build()
    passes, seg = segment_fusion(fusion)
    assert seg.kernel_count == kernels
    assert seg.boundaries
    assert all(reason in bd.reason for bd in seg.boundaries), [bd.reason for bd in seg.boundaries]
    assert {(r.first, r.second) for r in seg.refused} == {(bd.producer, bd.consumer) for bd in seg.boundaries}
    inputs = random_inputs(passes.fusion)
    for got, want in zip(run_groups(passes.fusion, seg, inputs), evaluate(fusion, inputs), strict=True):
        torch.testing.assert_close(got, want)


def test_reductions_over_different_axes_share_a_launch_but_not_a_kernel():
    fusion = _two_reductions()
    _, seg = segment_fusion(fusion)
    (launch,) = seg.groups
    assert launch.kind is H and [b.kind for b in launch.branches] == [R, R]
    rows, cols = (make_group(i, [e], fusion) for i, e in enumerate(fusion.exprs))
    verdict = can_fuse(rows, cols, fusion)
    assert not verdict.ok
    assert verdict.reason == (
        "the reduction over dim 1 of T0 [8, 6] and the one over dim 0 of T0 [8, 6] have different "
        "iteration spaces"
    )
    assert can_share_launch(rows, cols, fusion).ok


def test_merging_around_a_torch_op_would_create_a_cycle():
    b = Builder()
    x, w = b.define_tensor((4, 4), F32), b.define_tensor((4, 4), F32)
    e = b.op(Op.EXP, x)
    b.add_output(b.op(Op.ADD, e, b.op(Op.MATMUL, e, w)))
    fusion = b.build()
    exp_group, mm_group, add_group = (make_group(i, [e], fusion) for i, e in enumerate(fusion.exprs))
    verdict = can_fuse(exp_group, add_group, fusion, [mm_group])
    assert not verdict.ok
    assert verdict.reason.startswith("merging would create a cycle through group 1 (which computes T3)")
    launch = can_share_launch(exp_group, add_group, fusion, [mm_group])
    assert launch.reason == "group 2 reads T2 written by group 0: one launch cannot wait for its own results"
    torch_verdict = can_fuse(exp_group, mm_group, fusion, [add_group])
    assert (
        torch_verdict.reason
        == "T2 is read by a torch op (matmul), which takes its operands from global memory"
    )
    _, seg = segment_fusion(fusion)
    assert [g.kind for g in seg.groups] == [P, X, P]


def test_unknown_strategy_is_refused_with_the_choices():
    with pytest.raises(UnsupportedError, match=r"strategy 'greedy' is unknown; use one of hfuse, naive"):
        segment(cases.softmax(), strategy="greedy")


def _two_row_sums_then_a_full_value():
    """s1 and s2 are row sums; the group of s1 and the subtraction meets s2's group last."""
    b = Builder()
    x, y = b.define_tensor((4, 6), F32), b.define_tensor((4, 6), F32)
    total = b.op(Op.ADD, b.sum(x, [1], keepdim=True), b.sum(y, [1], keepdim=True))
    b.add_output(b.op(Op.SUB, x, total))
    return b.build()


def _two_transposed_outputs():
    """T2 and T3 both read a column-major input along its rows; T3's group meets T2's (with T4) last."""
    b = Builder()
    xt, yt = (b.define_tensor((4, 6), F32, strides=(1, 4)) for _ in range(2))
    a, p = b.op(Op.EXP, xt), b.op(Op.NEG, yt)
    for value in (a, p, b.op(Op.ADD, a, p)):
        b.add_output(value)
    return b.build()


@pytest.mark.parametrize(
    ("build", "named"),
    [
        (_two_row_sums_then_a_full_value, "the result of T3 is broadcast back"),
        (_two_transposed_outputs, "the innermost dim 1 of T3 comes from dim 1 of T1"),
    ],
    ids=["first_reduction", "first_transposed_output"],
)
def test_a_merged_kernel_is_named_after_the_group_the_merge_tried_first(build, named):
    """A merge analyses the producer's exprs, then the consumer's: the note names what comes first in
    that order, here the later of two in the fusion."""
    (group,) = segment(build()).groups
    assert named in group.note
