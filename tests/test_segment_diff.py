"""Two plans' segments matched through the op alignment: the same, changed, added or removed, and the
diagram that colours them side by side."""

import pytest
import segment_cases as cases

import hfuse
from hfuse.edit import cut_at
from hfuse.ir import Op
from hfuse.segment_diff import diff_segmentations, op_names
from hfuse.viz_diff import DIFF_COLORS, segment_legend, segmentation_diff_graph

TITLES = ("before", "after")


def _softmax():
    return cases.softmax((4, 8))


def _softmax_doubled():
    """Softmax with one more op at its end."""
    b = cases.Builder()
    b.add_output(b.op(Op.MUL, b.softmax(b.define_tensor((4, 8), cases.F32), 1), b.const(2.0)))
    return b.build()


def _qkv(segment_set: bool):
    """Three slice -> reshape -> permute chains of one input; the second with a segment_set after its
    slice."""
    b = cases.Builder()
    x = b.define_tensor((2, 4, 24), cases.F32)
    for i in range(3):
        piece = b.slice(x, [0, 0, 8 * i], [2, 4, 8 * (i + 1)])
        if segment_set and i == 1:
            piece = b.op(Op.SEGMENT_SET, piece)
        heads = b.op(Op.RESHAPE, piece, new_shape=[2, 4, 2, 4])
        b.add_output(b.op(Op.PERMUTE, heads, dims=[0, 2, 1, 3]))
    return b.build()


def _two_rows(negated: bool):
    """Two independent chains over parts of one input; the first with one more op when `negated`."""
    b = cases.Builder()
    x = b.define_tensor((8, 16), cases.F32)
    first = b.op(Op.EXP, b.slice(x, [0, 0], [4, 16]))
    b.add_output(b.op(Op.NEG, first) if negated else first)
    b.add_output(b.op(Op.SIN, b.slice(x, [4, 0], [8, 8])))
    return b.build()


def _diff(before, after, **options):
    plans = [hfuse.compile(fusion, **options) for fusion in (before, after)]
    return diff_segmentations(*((c.scheduled, c.segmentation) for c in plans), TITLES), plans


def _table(diff):
    """(segment before, segment after, status, note) of every match."""
    return [(m.before and m.before.id, m.after and m.after.id, m.status, m.note) for m in diff.matches]


# (case, before, after, compile options, the matches as _table gives them)
CASES = [
    ("identical", _softmax, _softmax, {}, [(0, 0, "same", "")]),
    ("extra_op_in_the_kernel", _softmax, _softmax_doubled, {}, [(0, 0, "changed", "added mul")]),
    (
        "names_renumbered_but_kernel_unchanged",
        lambda: _two_rows(False),
        lambda: _two_rows(True),
        {"strategy": "naive"},
        [(0, 0, "changed", "added neg"), (1, 1, "same", "")],
    ),
    (
        "segment_set_splits_the_views",
        lambda: _qkv(False),
        lambda: _qkv(True),
        {},
        [
            (0, 0, "changed", "slice moved to segment 1 after; reshape, permute moved to segment 2 after"),
            (None, 1, "added", "took slice from segment 0 before; added segment_set"),
            (None, 2, "added", "took reshape, permute from segment 0 before"),
        ],
    ),
    (
        "segment_set_dropped",
        lambda: _qkv(True),
        lambda: _qkv(False),
        {},
        [
            (0, 0, "changed", "took slice from segment 1 before; "
                              "took reshape, permute from segment 2 before"),
            (1, None, "removed", "slice moved to segment 0 after; segment_set removed"),
            (2, None, "removed", "reshape, permute moved to segment 0 after"),
        ],
    ),
    (
        "naive_plans_alike_kernel_by_kernel",
        lambda: _qkv(False),
        lambda: _qkv(False),
        {"strategy": "naive"},
        [(0, 0, "same", ""), (1, 1, "same", ""), (2, 2, "same", "")],
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("before", "after", "options", "table"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_segments_are_matched_through_the_ops_they_compute(before, after, options, table):
    diff, _ = _diff(before(), after(), **options)
    assert _table(diff) == table


def test_a_plan_against_another_segmenters_names_the_scheduler_it_had():
    plans = [hfuse.compile(_qkv(False), strategy=s) for s in ("hfuse", "naive")]
    diff = diff_segmentations(*((c.scheduled, c.segmentation) for c in plans), TITLES)
    first = diff.matches[0]
    assert (first.before.kind.value, first.after.kind.value, first.status) == (
        "alias",
        "pointwise",
        "changed",
    )
    assert first.note.startswith("scheduler was alias; ")
    assert diff.counts == {"same": 0, "changed": 1, "added": 2, "removed": 0}


def test_a_cut_inside_a_kernel_keeps_its_first_part_and_adds_two_kernels():
    before = _softmax()
    diff, _ = _diff(before, cut_at(before, "T4").fusion)
    assert diff.counts == {"same": 0, "changed": 1, "added": 2, "removed": 0} and diff.changed
    kept, hint, rest = diff.matches
    assert op_names(kept.after) == "max, broadcast_in_dim, sub, exp"
    assert kept.note == "sum, broadcast_in_dim, div moved to segment 2 after"
    assert (hint.note, rest.note) == (
        "added segment_set",
        "took sum, broadcast_in_dim, div from segment 0 before",
    )


def test_the_diagram_colours_both_plans_and_names_each_segments_partner():
    before = _softmax()
    diff, (old, new) = _diff(cut_at(before, "T4").fusion, before)
    graph = segmentation_diff_graph(
        (old.scheduled, old.segmentation, old.kernel_count),
        (new.scheduled, new.segmentation, new.kernel_count),
        diff,
        TITLES,
    )
    source = graph.source
    assert "before: 3 kernels" in source and "after: 1 kernel" in source
    for words in segment_legend(TITLES).values():
        assert words in source
    lines = source.splitlines()
    kept = [
        line for line in lines if "changed: segment 0 after" in line or "changed: segment 0 before" in line
    ]
    assert len(kept) == 2 and all(DIFF_COLORS["changed"][0] in line for line in kept)  # each names the other
    removed = [line for line in lines if "\\nremoved" in line]
    assert len(removed) == 2 and all(
        DIFF_COLORS["removed"][0] in line and "dashed" in line for line in removed
    )
