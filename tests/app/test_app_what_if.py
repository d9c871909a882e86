"""The Segmentation page's what-if, driven by Streamlit's AppTest: verdicts on two segments, a legal merge
or a cut tried, and both plans run side by side through the run service (here, in this process)."""

from app_harness import errors, graph_sources, open_app, open_page

from hfuse import share
from hfuse.examples import get_example
from hfuse.segment.override import Merge

SOFTMAX = share.encode_definition(get_example("softmax").text)
NAIVE_SIDE, HFUSE_SIDE = 0, 1  # the page's two columns, naive beside hfuse


def segmentation_page(side: int):
    at = open_page(open_app(f=SOFTMAX, v="1"), "app_pages/segments.py")
    return at.selectbox(key="whatif_side").set_value(side).run()


def figures(at) -> dict[str, dict[str, str]]:
    frame = next(f.value for f in at.dataframe if "what-if" in f.value.columns)
    return {row["measure"]: row for row in frame.to_dict("records")}


def test_the_page_answers_what_if_two_segments_were_merged():
    at = segmentation_page(NAIVE_SIDE)
    at.selectbox(key="whatif_first").set_value(0).run()
    at.selectbox(key="whatif_second").set_value(1).run()
    assert not at.exception
    said = [m.value for m in (*at.success, *at.warning)]
    assert any(s.startswith("**One kernel: yes.** one normalization kernel") for s in said), said
    assert any(s.startswith("**One launch, side by side: no.**") and "reads" in s for s in said), said
    assert not at.button(key="whatif_apply_kernel").disabled
    assert at.button(key="whatif_apply_launch").disabled  # the segmenter refuses it: no button to press


def test_a_legal_merge_is_drawn_beside_the_current_plan_and_both_run(service):
    at = segmentation_page(NAIVE_SIDE)
    at.selectbox(key="whatif_first").set_value(0).run()
    at.selectbox(key="whatif_second").set_value(1).run()
    at.button(key="whatif_apply_kernel").click().run()
    assert not at.exception and not errors(at)
    assert any("merge segments 0 and 1 as one kernel" in m.value for m in at.markdown)
    now, then = (m for m in at.metric if m.label.startswith("Kernels"))
    assert int(then.value) == int(now.value) - 1
    assert any("what-if: " in source and "current plan: " in source for source in graph_sources(at))
    at.button(key="whatif_run").click().run()
    assert not at.exception and not errors(at)
    current, merged = service.requests
    assert current.merge is None and merged.merge == Merge(0, 1, "kernel")
    assert current.text == merged.text and not current.compare and not merged.compare
    shown = figures(at)
    assert shown["kernels launched"]["change"] == "-1"
    assert shown["bytes between kernels"]["change"].startswith("-")
    checks = shown["outputs matching torch"]
    assert checks["current plan"] == checks["what-if"] == "1 of 1"
    assert [s.value for s in at.success][-2:] == ["The output matches torch."] * 2
    (kernels,) = [f.value for f in at.dataframe if "status" in f.value.columns]  # kernel beside kernel
    assert (kernels["kernel current plan"] != "-").sum() == int(now.value)
    assert (kernels["kernel what-if"] != "-").sum() == int(then.value)
    assert list(kernels["status"]).count("removed") == 1  # the merged pair's second kernel


def test_a_cut_inside_a_kernel_runs_as_a_definition_with_a_segment_set(service):
    at = segmentation_page(HFUSE_SIDE)
    at.radio(key="whatif_change").set_value("cut inside a segment").run()
    tensors = at.selectbox(key="whatif_tensor")
    assert tensors.options and all("in kernel 0: normalization" in option for option in tensors.options)
    at.button(key="whatif_apply_cut").click().run()
    assert not at.exception and not errors(at)
    assert any(m.value.startswith("**What-if:** cut at ") for m in at.markdown)
    assert any("fd.ops.segment_set(" in c.value for c in at.code)
    at.button(key="whatif_run").click().run()
    assert not at.exception and not errors(at)
    current, cut = service.requests
    assert "segment_set" not in current.text and "fd.ops.segment_set(" in cut.text and cut.merge is None
    shown = figures(at)
    assert int(shown["kernels launched"]["what-if"]) > int(shown["kernels launched"]["current plan"])
    assert shown["kernel time"]["change"] == "not measured (no GPU)"


def test_the_cut_definition_opens_in_the_editor():
    at = segmentation_page(HFUSE_SIDE)
    at.radio(key="whatif_change").set_value("cut inside a segment").run()
    at.button(key="whatif_apply_cut").click().run()
    at.button(key="whatif_open").click().run()
    assert not at.exception
    assert "fd.ops.segment_set(" in at.session_state["definition"]


def test_the_ir_pages_comparison_draws_the_difference_with_a_legend():
    at = segmentation_page(HFUSE_SIDE)
    at.radio(key="whatif_change").set_value("cut inside a segment").run()
    at.button(key="whatif_apply_cut").click().run()
    cut_text = next(c.value for c in at.code if "fd.ops.segment_set(" in c.value)
    at = open_page(at, "app_pages/ir.py")
    at.text_area(key="compared_definition").set_value(cut_text).run()
    assert not at.exception and not errors(at)
    drawn = next(source for source in graph_sources(at) if "cluster_legend" in source)
    assert "in this one, against in the other definition" in drawn
    assert "removed: only in the other definition" in drawn and "segment_set" in drawn  # not in this one
