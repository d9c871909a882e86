"""Segmentation invariants on random small DAGs of pointwise, layout and reduction ops."""

from __future__ import annotations

from unittest import mock

import pytest
import random_fusions
import torch
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from segment_cases import F32, Builder, random_inputs, run_groups, segment_fusion

from hfuse.errors import DefinitionError
from hfuse.ir import Fusion, Op, Value
from hfuse.reference import evaluate
from hfuse.segment.analysis import KernelState, Refusal, kernel_state
from hfuse.segment.graph import build_group
from hfuse.segment.merge import Merger
from hfuse.segment.model import SchedulerKind

UNARY = [Op.EXP, Op.NEG, Op.SIN, Op.TANH]
BINARY = [Op.ADD, Op.MUL, Op.SUB, Op.MAXIMUM]


def _grow(draw, b: Builder, pool: list[Value]) -> Value:
    """Adds one random op reading values of `pool`, and returns its result."""
    x = draw(st.sampled_from(pool))
    choices = ["unary", "scalar"]
    if any(v is not x and v.shape == x.shape for v in pool):
        choices.append("binary")
    if x.rank == 2:
        choices += ["permute", "slice", "flatten", "reduce", "normalize", "normalize", "segment_set", "cat"]
    if x.rank == 1:
        choices += ["broadcast", "split"] if x.shape[0] % 2 == 0 else ["broadcast"]
    if x.rank == 2 and 1 in x.shape:
        choices.append("expand")
    kind = draw(st.sampled_from(choices))
    if kind == "unary":
        return b.op(draw(st.sampled_from(UNARY)), x)
    if kind == "scalar":
        return b.op(draw(st.sampled_from(BINARY)), x, b.const(0.5))
    if kind == "binary":
        other = draw(st.sampled_from([v for v in pool if v is not x and v.shape == x.shape]))
        return b.op(draw(st.sampled_from(BINARY)), x, other)
    if kind == "permute":
        return b.op(Op.PERMUTE, x, dims=[1, 0])
    if kind == "slice":
        return b.slice(x, [0, 0], [x.shape[0], max(x.shape[1] // 2, 1)])
    if kind == "flatten":
        return b.op(Op.RESHAPE, x, new_shape=[x.numel])
    if kind == "split":
        return b.op(Op.RESHAPE, x, new_shape=[2, x.shape[0] // 2])
    if kind == "reduce":
        op = draw(st.sampled_from([Op.SUM, Op.MAX]))
        return b.op(op, x, dims=[draw(st.sampled_from([0, 1]))], keepdim=draw(st.booleans()))
    if kind == "normalize":
        dim, keepdim = draw(st.sampled_from([0, 1])), draw(st.booleans())
        stat = b.op(draw(st.sampled_from([Op.SUM, Op.MAX])), x, dims=[dim], keepdim=keepdim)
        if not keepdim:
            stat = b.bcast(stat, x.shape, [1 - dim])
        return b.op(draw(st.sampled_from(BINARY)), x, stat)
    if kind == "segment_set":
        return b.op(Op.SEGMENT_SET, x)
    if kind == "cat":
        return b.op(Op.CAT, x, x, dim=draw(st.sampled_from([0, 1])))
    if kind == "expand":
        return b.op(Op.EXPAND, x, shape=[e if e != 1 else 3 for e in x.shape])
    rows = draw(st.sampled_from([3, 4]))
    if draw(st.booleans()):
        return b.bcast(x, [x.shape[0], rows], [0])
    return b.bcast(x, [rows, x.shape[0]], [1])


@st.composite
def fusions(draw) -> Fusion:
    b = Builder()
    pool = [b.define_tensor((4, 6), F32)]
    if draw(st.booleans()):
        pool.append(b.define_tensor((4, 6), F32))
    for _ in range(draw(st.integers(2, 9))):
        pool.append(_grow(draw, b, pool))
    computed = pool[-1:] + draw(st.lists(st.sampled_from(pool[:-1]), max_size=3, unique_by=lambda v: v.name))
    for value in computed:
        b.add_output(value)
    return b.build()


def _check_invariants(fusion: Fusion, strategy: str, alias_outputs: bool) -> None:
    passes, seg = segment_fusion(fusion, strategy, alias_outputs)
    final = passes.fusion
    placed = [e for g in seg.groups for e in g.exprs]
    assert sorted(map(str, placed)) == sorted(map(str, final.exprs)), "every expr in exactly one group"
    available = set(final.inputs)
    owner = {}
    for group in seg.groups:
        assert set(group.inputs) <= available, (
            f"group {group.id} reads {set(group.inputs) - available} too early"
        )
        if group.kind is SchedulerKind.HORIZONTAL:
            assert sorted(map(str, (e for br in group.branches for e in br.exprs))) == sorted(
                map(str, group.exprs)
            )
        available.update(group.outputs)
        owner.update((name, group.id) for name in group.outputs if name not in final.inputs)
    crossing = {(owner[n], g.id, n) for g in seg.groups for n in g.inputs if n in owner}
    assert crossing == {(bd.producer, bd.consumer, bd.tensor) for bd in seg.boundaries}
    assert all(bd.reason for bd in seg.boundaries)
    assert set(final.output_names) <= available
    inputs = random_inputs(final, seed=1)
    for got, want in zip(run_groups(final, seg, inputs), evaluate(fusion, inputs), strict=True):
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize(
    ("strategy", "alias_outputs"),
    [("hfuse", True), ("hfuse", False), ("naive", False)],
    ids=["hfuse_aliased", "hfuse_copied", "naive"],
)
@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fusion=fusions())
def test_segmentation_invariants_hold_on_random_fusions(fusion, strategy, alias_outputs):
    _check_invariants(fusion, strategy, alias_outputs)


def _positions(merger: Merger, gid: int) -> list[int]:
    facts = merger.facts[gid]
    return sorted([*facts.own, *facts.copied])


def _checked_kernel():
    """`Merger.kernel`, checking each merged fit against the analysis of the union from scratch: the fit
    in the order the merge tried the two groups in, the state a later merge continues from in position
    order."""
    kernel = Merger.kernel

    def checking(self: Merger, first, second, *, independent: bool):
        index = self.index
        ordered = _positions(self, first.id) + _positions(self, second.id)
        union = sorted(set(ordered))
        expected = index.fit([index.exprs[p] for p in ordered])
        merged = kernel(self, first, second, independent=independent)
        assert (merged is None) == isinstance(expected, Refusal)
        if merged is None:
            return None
        group, state = merged
        whole, _ = build_group(-1, union, index)
        assert state.fit == expected
        assert (group.inputs, group.outputs) == (whole.inputs, whole.outputs)
        scratch = kernel_state(union, index, whole.outputs)
        assert isinstance(scratch, KernelState)
        assert (state.reduction, state.broadcast_back, state.roles) == (
            scratch.reduction,
            scratch.broadcast_back,
            scratch.roles,
        )
        assert (state.transposed or (None,))[0] == (scratch.transposed or (None,))[0]
        return merged

    return checking


@st.composite
def _laid_out_fusions(draw) -> Fusion:
    """`random_fusions.fusions()` (inputs in several layouts, so that some kernels transpose), but for the
    few draws whose three operands of a ternary op do not broadcast together."""
    try:
        return draw(random_fusions.fusions())
    except DefinitionError:
        reject()


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fusion=st.one_of(fusions(), _laid_out_fusions()))
def test_a_merge_continues_the_analyses_of_its_two_groups_to_that_of_the_union(fusion):
    with mock.patch.object(Merger, "kernel", _checked_kernel()):
        for strategy, alias_outputs in (("hfuse", True), ("hfuse", False), ("naive", False)):
            segment_fusion(fusion, strategy, alias_outputs)
