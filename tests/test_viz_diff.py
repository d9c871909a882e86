"""The difference of two fusions: ops aligned by what they are, and the diagram that colours them."""

import segment_cases as cases

from hfuse.edit import cut_at
from hfuse.fusion_diff import diff_fusions
from hfuse.viz_diff import DIFF_COLORS, diff_graph, legend

TITLES = ("before", "after")


def _softmax():
    return cases.softmax((4, 8))


def test_an_inserted_op_is_added_and_its_readers_changed_though_every_later_name_moved():
    before = _softmax()
    after = cut_at(before, "T4").fusion
    diff = diff_fusions(before, after)
    ops = [(e.op.frontend_name, status) for e, status in zip(after.exprs, diff.exprs, strict=True)]
    assert [op for op, status in ops if status == "added"] == ["segment_set"]
    assert [op for op, status in ops if status == "changed"] == ["sum", "div"]  # they read its result
    assert diff.removed == () and diff.inputs == ("same",) and diff.changed
    assert diff.partner["T8"] == "T7"  # the output, renumbered


def test_a_removed_op_is_listed_and_a_changed_shape_marks_the_ops_that_make_it():
    cut = cut_at(_softmax(), "T4").fusion
    assert diff_fusions(cut, _softmax()).removed == (4,)
    wider = diff_fusions(_softmax(), cases.softmax((4, 16)))
    assert wider.inputs == ("changed",) and "changed" in wider.exprs and not wider.removed
    assert not diff_fusions(_softmax(), _softmax()).changed


def test_the_diagram_colours_each_status_and_draws_a_legend():
    before = _softmax()
    after = cut_at(before, "T4").fusion
    source = diff_graph(before, after, diff_fusions(before, after), TITLES).source
    assert "cluster_legend" in source and "after, against before" in source
    assert "added: only after" in source and "removed: only before" in source
    for status, words in legend(TITLES).items():
        assert words in source and DIFF_COLORS[status][0] in source
    added = next(line for line in source.splitlines() if "segment_set" in line)
    assert DIFF_COLORS["added"][0] in added
    back = diff_graph(after, before, diff_fusions(after, before), TITLES).source
    removed = next(line for line in back.splitlines() if line.strip().startswith("removed_e4 "))
    assert "segment_set" in removed and "dashed" in removed
    assert 'v_T4 -> removed_e4 [color="#d62728" style=dashed]' in back
