"""What-if plans: a merge of two segments asked of the compile, a cut (`segment_set`) put in the definition,
and both run beside the current plan. Every plan that runs is compared with the torch reference."""

from __future__ import annotations

import pytest
import segment_cases as cases
import torch

import hfuse
from hfuse.edit import cut_at
from hfuse.errors import DefinitionError, MergeError, UnsupportedError
from hfuse.examples import get_example
from hfuse.ir import Op
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.segment.model import SchedulerKind
from hfuse.segment.override import KERNEL, LAUNCH, Merge
from hfuse.segment_diff import diff_segmentations
from hfuse.service.request import RunRequest, run_request
from hfuse.tolerance import compare, reduction_size
from hfuse.what_if import Candidate, compare_kernels, compare_runs, cut, cuttable_tensors, merged


def _softmax():
    return cases.softmax((4, 8))


def _cross_entropy():
    return cases.cross_entropy((4, 8))


def _split_rows():
    """Two independent chains over different shapes: naive gives each its kernel."""
    b = cases.Builder()
    x = b.define_tensor((8, 16), cases.F32)
    b.add_output(b.op(Op.EXP, b.slice(x, [0, 0], [4, 16])))
    b.add_output(b.op(Op.SIN, b.slice(x, [4, 0], [8, 8])))
    return b.build()


def _segment_set():
    b = cases.Builder()
    x = b.define_tensor((8, 6), cases.F32)
    b.add_output(b.op(Op.LOG, b.op(Op.SEGMENT_SET, b.op(Op.EXP, x))))
    return b.build()


def _check_against_reference(fusion, merge, strategy):
    inputs = cases.random_inputs(fusion)
    outputs, _, compiled = execute(fusion, inputs, backend=strategy, merge=merge)
    for out, got, want in zip(fusion.outputs, outputs, evaluate(fusion, inputs), strict=True):
        value = fusion.value(out.name)
        assert compare(got, want, value.dtype, reduction_size(fusion, out.name)).ok, out.name
    return compiled


# (fusion, strategy, merge, kernels before, kernels after, kind of the merged segment)
LEGAL = [
    ("softmax_max_and_exp", _softmax, "naive", Merge(0, 1), 5, 4, SchedulerKind.NORMALIZATION),
    ("softmax_last_two", _softmax, "naive", Merge(3, 4), 5, 4, SchedulerKind.POINTWISE),
    ("rows_one_launch", _split_rows, "naive", Merge(0, 1, LAUNCH), 2, 1, SchedulerKind.HORIZONTAL),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "strategy", "merge", "before", "after", "kind"),
    [case[1:] for case in LEGAL],
    ids=[case[0] for case in LEGAL],
)
def test_a_legal_merge_is_applied_and_its_kernels_match_the_reference(
    build, strategy, merge, before, after, kind
):
    fusion = build()
    assert hfuse.compile(fusion, strategy=strategy).kernel_count == before
    compiled = _check_against_reference(fusion, merge, strategy)
    assert compiled.merge == merge and compiled.kernel_count == after
    assert kind in [g.kind for g in compiled.segmentation.groups]
    assert [g.id for g in compiled.segmentation.groups] == list(range(len(compiled.segmentation.groups)))


# (fusion, strategy, merge, words of the refusal)
REFUSED = [
    ("reduction_of_reduction", _cross_entropy, "hfuse", Merge(0, 1), "needs a grid-wide sync"),
    ("segment_set", _segment_set, "hfuse", Merge(0, 1), "SEGMENT_SET asks for a boundary here"),
    ("dependent_launch", _softmax, "naive", Merge(0, 1, LAUNCH), "reads T1 written by group 0"),
    ("cycle", _softmax, "naive", Merge(1, 4), "would create a cycle through group 2"),
    ("no_such_segment", _softmax, "naive", Merge(0, 9), "there is no segment 9"),
    ("itself", _softmax, "naive", Merge(2, 2), "cannot be merged with itself"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "strategy", "merge", "words"), [case[1:] for case in REFUSED], ids=[case[0] for case in REFUSED]
)
def test_an_illegal_merge_is_refused_with_the_segmenters_reason(build, strategy, merge, words):
    with pytest.raises(MergeError, match=words):
        hfuse.compile(build(), strategy=strategy, merge=merge)


def test_a_merge_names_the_two_segments_and_how():
    assert str(Merge(1, 2)) == "segments 1 and 2 as one kernel"
    assert str(Merge(1, 2, LAUNCH)) == "segments 1 and 2 as one launch, side by side"
    with pytest.raises(ValueError, match="unknown way to merge 'fused'"):
        Merge(0, 1, "fused")


def test_a_backend_without_segments_refuses_a_merge():
    fusion = _softmax()
    with pytest.raises(UnsupportedError, match="no segments to merge"):
        execute(fusion, cases.random_inputs(fusion), backend="eager", merge=Merge(0, 1, KERNEL))


def test_a_cut_starts_a_kernel_at_the_readers_and_still_matches_the_reference():
    fusion = _softmax()
    assert hfuse.compile(fusion).kernel_count == 1
    made = cut_at(fusion, "T4")
    (hint,) = [e for e in made.fusion.exprs if e.op is Op.SEGMENT_SET]
    assert (made.tensor, made.copy) == ("T4", hint.outputs[0]) == ("T4", "T5")
    assert [e for e in made.fusion.exprs if "T4" in e.inputs] == [hint]  # every reader reads the copy
    compiled = _check_against_reference(made.fusion, None, "hfuse")
    assert compiled.kernel_count == 3
    assert any("SEGMENT_SET asks for a boundary here" in b.reason for b in compiled.segmentation.boundaries)


@pytest.mark.parametrize(
    ("tensor", "words"),
    [
        ("T0", "not a tensor an op of this fusion computes"),
        ("T7", "no op reads T7"),
        ("T99", "pick one of T1"),
    ],
    ids=["input", "unread", "unknown"],
)
def test_a_cut_where_nothing_can_be_cut_says_what_to_pick(tensor, words):
    with pytest.raises(DefinitionError, match=words):
        cut_at(_softmax(), tensor)


SOFTMAX = get_example("softmax").text


def _current(strategy="hfuse"):
    return Candidate(SOFTMAX, strategy, alias_outputs=True)


def test_a_cut_candidate_is_a_definition_the_loader_reads_with_the_scripts_inputs():
    script = hfuse.load(SOFTMAX, device="meta")
    cuttable = cuttable_tensors(hfuse.compile(script.fusion))
    assert set(cuttable.values()) == {0} and len(cuttable) >= 3  # one kernel: every tensor it reads
    tensor = next(iter(cuttable))
    what_if = cut(_current(), script, tensor)
    assert "fd.ops.segment_set(" in what_if.text and what_if.merge is None
    assert what_if.change.startswith(f"cut at {tensor}: its readers read ")
    reloaded = hfuse.load(what_if.text, device="meta").fusion
    assert [v.shape for v in map(reloaded.value, reloaded.inputs)] == [
        v.shape for v in map(script.fusion.value, script.fusion.inputs)
    ]


def test_the_current_and_a_merged_plan_run_side_by_side_through_run_requests(fresh_cache):
    current = _current("naive")
    what_if = merged(current, Merge(0, 1))
    assert what_if.change == "merge segments 0 and 1 as one kernel"
    results = [run_request(plan.request()) for plan in (current, what_if)]
    assert all(r.ok for r in results), [r.failure for r in results]
    figures = {f.measure: f for f in compare_runs(*results)}
    kernels = figures["kernels launched"]
    assert int(kernels.what_if) == int(kernels.current) - 1 and kernels.change == "-1"
    assert figures["outputs matching torch"].current == figures["outputs matching torch"].what_if
    assert figures["bytes moved"].change.startswith("-")  # one tensor less goes through memory
    if not torch.cuda.is_available():
        assert figures["kernel time"].change == "not measured (no GPU)"


def test_a_refused_merge_comes_back_as_the_runs_failure(fresh_cache):
    result = run_request(merged(_current("hfuse"), Merge(0, 1)).request())
    assert result.failure is not None and result.failure.kind == "MergeError"
    assert "there is no segment 1" in result.failure.reason


def test_a_run_measured_beside_torch_takes_no_merge():
    with pytest.raises(ValueError, match="without a merge"):
        RunRequest(SOFTMAX, compare=True, merge=Merge(0, 1))


def test_two_definitions_run_with_each_kernel_beside_its_partner(fresh_cache):
    """The definition against itself with a cut: kernels matched by `hfuse.segment_diff`, bytes and the
    change of each, the figures' changes and ratios."""
    before = _current()
    script = hfuse.load(SOFTMAX, device="meta")
    after = cut(before, script, "T4")
    results = [run_request(plan.request()) for plan in (before, after)]
    assert all(r.ok for r in results), [r.failure for r in results]
    plans = [hfuse.compile(hfuse.load(plan.text, device="meta").fusion) for plan in (before, after)]
    diff = diff_segmentations(*((c.scheduled, c.segmentation) for c in plans), ("before", "after"))
    kernels = compare_kernels(*results, diff)
    assert [(k.status, k.current, k.what_if) for k in kernels] == [
        ("changed", "hfuse_normalization_g0", "hfuse_normalization_g0"),
        ("added", "-", "hfuse_pointwise_g1"),
        ("added", "-", "hfuse_normalization_g2"),
    ]
    kept, *added = kernels
    # the kept kernel writes T4 where it wrote T7, of the same size
    assert kept.bytes_current == kept.bytes_what_if and kept.bytes_change == "same"
    assert all(k.bytes_current == "-" and k.bytes_change == "+" + k.bytes_what_if for k in added)
    figures = {f.measure: f for f in compare_runs(*results)}
    assert (figures["kernels launched"].change, figures["kernels launched"].ratio) == ("+2", "3.00x")
    assert figures["bytes moved"].ratio == "3.00x"  # each kernel reads and writes one tensor of the same size
    between = figures["bytes between kernels"]
    assert between.current == "0 B" and between.change.startswith("+") and between.ratio == ""  # none before
    if not torch.cuda.is_available():
        assert all(k.time_change == "not measured (no GPU)" for k in kernels)
        assert (figures["kernel time"].change, figures["kernel time"].ratio) == ("not measured (no GPU)", "")
