"""The IR page's comparison kernel by kernel, driven by Streamlit's AppTest: a shared comparison link shows
hfuse's segments of both definitions matched and drawn, and Run both runs the two through the run service
(here, in this process) with the figures, their changes and each kernel beside its partner."""

from app_harness import errors, graph_sources, open_app, open_page

from hfuse import share
from hfuse.examples import get_example

SOFTMAX = get_example("softmax").text
CUT = SOFTMAX.replace("fd.ops.sum(T4,", "fd.ops.sum(fd.ops.segment_set(T4),")
OTHER, THIS = "in the other definition", "in this one"


def shared_comparison():
    """The IR page opened from a link: this definition softmax, compared with softmax cut before its sum."""
    at = open_app(f=share.encode_definition(SOFTMAX), v="1", c=share.encode_definition(CUT))
    return open_page(at, "app_pages/ir.py")


def frame(at, column: str) -> list[dict[str, str]]:
    return next(f.value for f in at.dataframe if column in f.value.columns).to_dict("records")


def test_a_shared_comparison_shows_which_segments_are_the_same_changed_or_removed():
    at = shared_comparison()
    assert not at.exception and not errors(at)
    segments = frame(at, f"segment {THIS}")
    assert [(row[f"segment {OTHER}"], row[f"segment {THIS}"], row["status"]) for row in segments] == [
        ("kernel 0", "kernel 0", "changed"),
        ("kernel 1", "-", "removed"),
        ("kernel 2", "-", "removed"),
    ]
    assert segments[0]["what differs"] == f"took sum, broadcast_in_dim, div from segment 2 {OTHER}"
    assert segments[1]["ops"] == "segment_set" and segments[0]["scheduler"] == "normalization"
    assert any(
        m.value.startswith(f"**hfuse's segments, {THIS} against {OTHER}:** 1 changed, 2 removed")
        for m in at.markdown
    )
    drawn = next(
        source for source in graph_sources(at) if "cluster_L_side" in source and "cluster_legend" in source
    )
    assert f"{OTHER}: 3 kernels" in drawn and f"{THIS}: 1 kernel" in drawn
    assert f"changed: segment 0 {OTHER}" in drawn and "removed: only in the other definition" in drawn


def test_run_both_sets_the_two_runs_and_each_kernel_side_by_side(service):
    at = shared_comparison()
    at.button(key="other_run").click().run()
    assert not at.exception and not errors(at)
    cut, this = service.requests
    assert "segment_set" in cut.text and "segment_set" not in this.text
    assert cut.backend == this.backend == "hfuse"
    assert cut.alias_outputs and this.alias_outputs and not cut.compare
    figures = {row["measure"]: row for row in frame(at, "ratio")}
    assert (figures["kernels launched"][OTHER], figures["kernels launched"][THIS]) == ("3", "1")
    assert (figures["kernels launched"]["change"], figures["kernels launched"]["ratio"]) == ("-2", "0.33x")
    assert figures["outputs matching torch"][OTHER] == figures["outputs matching torch"][THIS] == "1 of 1"
    assert figures["kernel time"]["change"] == "not measured (no GPU)"
    kernels = frame(at, "time change")
    assert [(k["status"], k[f"kernel {OTHER}"], k[f"kernel {THIS}"]) for k in kernels] == [
        ("changed", "hfuse_normalization_g0", "hfuse_normalization_g0"),
        ("removed", "hfuse_pointwise_g1", "-"),
        ("removed", "hfuse_normalization_g2", "-"),
    ]
    assert all(k["bytes change"].startswith("-") for k in kernels[1:])
    assert [s.value for s in at.success][-2:] == ["The output matches torch."] * 2
    assert at.session_state["run_report"][0] == (this.text, "hfuse", "views", 0)  # the Run page shows it


def test_the_visitors_edits_are_compared_kernel_by_kernel():
    at = open_app(f=share.encode_definition(SOFTMAX), v="1")
    at.session_state["code_editor_0"] = {"id": "edit0001", "type": "blur", "text": CUT}
    open_page(at, "app_pages/ir.py")
    assert not at.exception and not errors(at)
    segments = frame(at, "segment now")
    assert [row["status"] for row in segments] == ["changed", "added", "added"]
    assert segments[1]["what differs"] == "added segment_set"
    assert at.button(key="edits_run").label == "Run both"
