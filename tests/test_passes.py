"""The passes: canonicalization, dead code removal and alias analysis, each checked against torch."""

from __future__ import annotations

import pytest
import segment_cases as cases
import torch
from segment_cases import BF16, F32, Builder, random_inputs

from hfuse.ir import Op
from hfuse.layout import reshaped_strides
from hfuse.passes import canonicalize, eliminate_dead_code, mark_aliases, run_passes
from hfuse.reference import evaluate
from hfuse.verify import verify

NOOPS = [
    ("set", lambda b, x: b.op(Op.SET, x)),
    ("reshape_same_shape", lambda b, x: b.op(Op.RESHAPE, x, new_shape=[4, 6])),
    ("identity_permute", lambda b, x: b.op(Op.PERMUTE, x, dims=[0, 1])),
    ("full_slice", lambda b, x: b.slice(x, [0, 0], [4, 6])),
    ("zero_pad", lambda b, x: b.add(Op.PAD, [x, b.const(0.0)], {"pad_widths": [0, 0, 0, 0]})[0]),
    ("same_dtype_cast", lambda b, x: b.cast(x, F32)),
    ("one_piece_cat", lambda b, x: b.op(Op.CAT, x, dim=1)),
    ("identity_broadcast_in_dim", lambda b, x: b.bcast(x, [4, 6], [0, 1])),
    ("set_chain", lambda b, x: b.op(Op.SET, b.op(Op.SET, b.op(Op.SET, x)))),
]


@pytest.mark.parametrize("make", [c[1] for c in NOOPS], ids=[c[0] for c in NOOPS])
def test_noops_fold_into_their_operand(make):
    b = Builder()
    x = b.define_tensor((4, 6), F32)
    b.add_output(b.op(Op.EXP, make(b, x)))
    fusion = b.build()
    folded = canonicalize(fusion)
    verify(folded)
    assert [(e.op, e.inputs) for e in folded.exprs] == [(Op.EXP, ("T0",))]
    inputs = random_inputs(fusion)
    torch.testing.assert_close(evaluate(folded, inputs), evaluate(fusion, inputs))


KEPT = [
    ("segment_set", lambda b, x: b.op(Op.SEGMENT_SET, x), Op.SEGMENT_SET),
    ("real_reshape", lambda b, x: b.op(Op.RESHAPE, x, new_shape=[6, 4]), Op.RESHAPE),
    ("real_permute", lambda b, x: b.op(Op.PERMUTE, x, dims=[1, 0]), Op.PERMUTE),
    ("partial_slice", lambda b, x: b.slice(x, [0, 1], [4, 6]), Op.SLICE),
    ("shifting_pad", lambda b, x: b.add(Op.PAD, [x, b.const(0.0)], {"pad_widths": [1, -1]})[0], Op.PAD),
    ("narrowing_cast", lambda b, x: b.cast(x, BF16), Op.CAST),
]


@pytest.mark.parametrize(("make", "op"), [c[1:] for c in KEPT], ids=[c[0] for c in KEPT])
def test_ops_that_change_something_are_kept(make, op):
    b = Builder()
    x = b.define_tensor((4, 6), F32)
    b.add_output(b.op(Op.EXP, make(b, x)))
    fusion = b.build()
    assert canonicalize(fusion) == fusion
    assert fusion.exprs[0].op is op


def test_a_copy_of_an_input_stays_a_copy_and_an_inner_set_renames_the_output():
    b = Builder()
    x = b.define_tensor((4, 6), F32)
    b.add_output(b.op(Op.SET, x))
    b.add_output(b.op(Op.SET, b.op(Op.EXP, x)))
    folded = canonicalize(b.build())
    verify(folded)
    assert [e.op for e in folded.exprs] == [Op.SET, Op.EXP]
    assert folded.output_names == ("T1", "T2")


def test_dead_code_is_removed_and_inputs_stay():
    b = Builder()
    x, unused = b.define_tensor((4, 6), F32), b.define_tensor((3,), F32)
    live = b.op(Op.EXP, x)
    b.op(Op.LOG, b.op(Op.SIN, x))
    b.add_output(live)
    fusion = b.build()
    pruned = eliminate_dead_code(fusion)
    verify(pruned)
    assert [e.op for e in pruned.exprs] == [Op.EXP]
    assert pruned.inputs == (x.name, unused.name)
    assert {v.name for v in pruned.values} == {x.name, unused.name, live.name}


# (name, input shape, input strides or None, view ops as (op, attrs); the output must be an alias)
VIEWS = [
    (
        "slice_reshape_permute",
        (2, 4, 12),
        None,
        [
            (Op.SLICE, {"starts": [0, 0, 4], "ends": [2, 4, 8], "strides": [1, 1, 1]}),
            (Op.RESHAPE, {"new_shape": [2, 4, 2, 2]}),
            (Op.PERMUTE, {"dims": [0, 2, 1, 3]}),
        ],
    ),
    ("broadcast_in_dim", (6,), None, [(Op.BROADCAST_IN_DIM, {"shape": [3, 6], "broadcast_dims": [1]})]),
    (
        "broadcast_then_expand",
        (4, 6),
        None,
        [(Op.BROADCAST, {"is_broadcast_dim": [False, True, False]}), (Op.EXPAND, {"shape": [4, 5, 6]})],
    ),
    ("squeeze", (4, 1, 6), None, [(Op.SQUEEZE, {"dims": [1]})]),
    ("column_major_split", (6, 4), (1, 6), [(Op.RESHAPE, {"new_shape": [2, 3, 4]})]),
    ("stride_order_already_there", (6, 4), (1, 6), [(Op.STRIDE_ORDER, {"stride_order": [0, 1]})]),
    (
        "row_slice_then_merge",
        (6, 4),
        None,
        [
            (Op.SLICE, {"starts": [2, 0], "ends": [5, 4], "strides": [1, 1]}),
            (Op.RESHAPE, {"new_shape": [12]}),
        ],
    ),
]


def _view_fusion(shape, strides, ops, **output):
    b = Builder()
    value = b.define_tensor(shape, F32, strides=strides)
    for op, attrs in ops:
        value = b.op(op, value, **attrs)
    b.add_output(value, **output)
    return b.build()


@pytest.mark.parametrize(("shape", "strides", "ops"), [c[1:] for c in VIEWS], ids=[c[0] for c in VIEWS])
def test_views_of_inputs_become_aliases_equal_to_torch(shape, strides, ops):
    fusion = _view_fusion(shape, strides, ops)
    marked, (alias,) = mark_aliases(fusion)
    verify(marked)
    (x,) = random_inputs(fusion)
    view = x.as_strided(alias.shape, alias.strides, x.storage_offset() + alias.offset)
    torch.testing.assert_close(view, evaluate(fusion, [x])[0], rtol=0, atol=0)
    assert marked.value(alias.output).strides == alias.strides


NOT_VIEWS = [
    (
        "merge_of_a_transpose",
        (4, 6),
        None,
        [(Op.PERMUTE, {"dims": [1, 0]}), (Op.RESHAPE, {"new_shape": [24]})],
    ),
    (
        "merge_of_column_slice",
        (4, 6),
        None,
        [
            (Op.SLICE, {"starts": [0, 1], "ends": [4, 4], "strides": [1, 1]}),
            (Op.RESHAPE, {"new_shape": [12]}),
        ],
    ),
    ("stride_order_needs_a_copy", (6, 4), None, [(Op.STRIDE_ORDER, {"stride_order": [0, 1]})]),
    ("computes", (4, 6), None, [(Op.EXP, {})]),
]


@pytest.mark.parametrize(
    ("shape", "strides", "ops"), [c[1:] for c in NOT_VIEWS], ids=[c[0] for c in NOT_VIEWS]
)
def test_chains_that_move_data_are_not_aliases(shape, strides, ops):
    fusion = _view_fusion(shape, strides, ops)
    assert mark_aliases(fusion) == (fusion, ())


def test_an_output_stride_order_the_view_lacks_prevents_the_alias():
    ops = [(Op.PERMUTE, {"dims": [1, 0]})]
    assert mark_aliases(_view_fusion((4, 6), None, ops, stride_order=[1, 0]))[1] == ()
    assert len(mark_aliases(_view_fusion((4, 6), None, ops, stride_order=[0, 1]))[1]) == 1


def test_aliasing_off_leaves_the_fusion_as_it_is():
    result = run_passes(cases.qkv_split(), alias_outputs=False)
    assert result.aliases == ()
    assert result.final is result.live
    assert [name for name, _ in result.stages] == [
        "as defined",
        "canonicalized",
        "dead code removed",
        "aliases marked",
    ]


def test_a_view_also_read_by_a_computation_gets_a_private_copy():
    b = Builder()
    x = b.define_tensor((4, 6), F32)
    t = b.op(Op.PERMUTE, x, dims=[1, 0])
    b.add_output(t)
    b.add_output(b.op(Op.EXP, t))
    fusion = b.build()
    result = run_passes(fusion)
    for _, stage in result.stages:
        verify(stage)
    (alias,) = result.aliases
    assert (alias.output, alias.strides) == (t.name, (1, 6))
    exp = next(e for e in result.final.exprs if e.op is Op.EXP)
    copy = result.final.value(exp.inputs[0])
    assert copy.name != t.name and copy.strides == (4, 1)
    inputs = random_inputs(fusion)
    torch.testing.assert_close(evaluate(result.final, inputs), evaluate(fusion, inputs))


@pytest.mark.parametrize(
    ("shape", "strides", "new_shape", "expected"),
    [
        ((4, 6), (6, 1), (2, 12), (12, 1)),
        ((4, 6), (1, 4), (4, 2, 3), (1, 12, 4)),
        ((4, 6), (1, 4), (24,), None),
        ((2, 1, 3), (3, 3, 1), (6,), (1,)),
    ],
    ids=["contiguous", "column_major_split", "column_major_merge", "through_extent_one"],
)
def test_view_strides_agree_with_torch_view(shape, strides, new_shape, expected):
    assert reshaped_strides(shape, strides, new_shape) == expected
    base = torch.empty_strided(shape, strides)
    if expected is None:
        with pytest.raises(RuntimeError):
            base.view(new_shape)
    else:
        assert base.view(new_shape).stride() == expected
