import re

import graphviz
import pytest

from hfuse import viz
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import LimitError
from hfuse.ir import Op
from hfuse.runtime.profile_model import FusionProfile, KernelProfile
from hfuse.segment.model import Boundary, Group, SchedulerKind, Segmentation
from hfuse.units import format_bytes


def qkv_split():
    """The seed's pattern at a small size: three slice -> reshape -> permute chains of one input."""
    b = FusionBuilder()
    x = b.define_tensor([4, 6, 12], DataType.Float)
    for i in range(3):
        (s,) = b.add(Op.SLICE, [x], dict(starts=(0, 0, 4 * i), ends=(4, 6, 4 * i + 4), strides=(1, 1, 1)))
        (r,) = b.add(Op.RESHAPE, [s], dict(new_shape=(4, 6, 2, 2)))
        (p,) = b.add(Op.PERMUTE, [r], dict(dims=(0, 2, 1, 3)))
        b.add_output(p)
    return b.build()


def scale_then_sum():
    """x * 2.0 then a sum: a constant operand, an intermediate tensor and an aliased output."""
    b = FusionBuilder()
    x = b.define_tensor([8, 16], DataType.Half)
    two = b.define_scalar(DataType.Double, 2.0)
    (y,) = b.add(Op.MUL, [x, two])
    (z,) = b.add(Op.SUM, [y], dict(dims=(1,), keepdim=False, dtype=DataType.Float))
    (w,) = b.add(Op.CAST, [y], dict(dtype=DataType.Half))
    b.add_output(z)
    b.add_output(w, alias_input=x)
    return b.build()


def groups_per_chain(fusion, kind=SchedulerKind.POINTWISE):
    groups = []
    for i in range(3):
        exprs = fusion.exprs[3 * i : 3 * i + 3]
        groups.append(Group(i, kind, exprs, fusion.inputs, (exprs[-1].outputs[0],)))
    return groups


def naive_seed(fusion):
    return Segmentation("naive", tuple(groups_per_chain(fusion)), ())


def horizontal_seed(fusion):
    branches = tuple(groups_per_chain(fusion))
    whole = Group(0, SchedulerKind.HORIZONTAL, fusion.exprs, fusion.inputs, fusion.output_names, branches)
    return Segmentation("hfuse", (whole,), ())


def split_scale_then_sum(fusion):
    mul, total, cast = fusion.exprs
    y = mul.outputs[0]
    first = Group(0, SchedulerKind.POINTWISE, (mul, cast), fusion.inputs, (y, cast.outputs[0]))
    second = Group(1, SchedulerKind.REDUCTION, (total,), (y,), total.outputs)
    reason = 'the sum needs all of "T1" & <the> reduction scheduler'
    return Segmentation("hfuse", (first, second), (Boundary(0, 1, y, reason),))


def nodes_and_edges(graph: graphviz.Digraph):
    source = graph.source
    edges = re.findall(r"^\s*(\S+) -> (\S+)", source, re.M)
    return source, edges


def test_ir_graph_draws_inputs_ops_and_outputs():
    fusion = qkv_split()
    source, edges = nodes_and_edges(viz.ir_graph(fusion))
    assert source.count("input") == 1 and source.count("output") == 3
    assert "Float[4, 6, 12]" in source and "Float[4, 2, 6, 2]" in source
    assert "dims=(0, 2, 1, 3)" in source and "slice" in source
    # x -> 3 slices, each expr -> its output, slice/reshape outputs -> next expr
    assert len(edges) == 3 + 9 + 6
    assert ("T0", "e0") in edges and ("e8", "T9") in edges


def test_ir_graph_folds_constants_and_marks_aliases():
    fusion = scale_then_sum()
    source, edges = nodes_and_edges(viz.ir_graph(fusion))
    assert "S0 = 2.0" in source and "dtype=Float" in source
    assert all("S0" not in edge for edge in edges)
    assert "output, written into T0" in source


def test_ir_graph_marks_view_outputs():
    fusion = qkv_split()
    views = {name: "T0" for name in fusion.output_names}
    source = viz.ir_graph(fusion, views=views).source
    assert source.count("output, view of T0") == 3 and "dashed" in source


SEGMENTATIONS = {
    "naive: 3 pointwise kernels": (qkv_split, naive_seed, 3, 0),
    "hfuse: one horizontal kernel, 3 branches": (qkv_split, horizontal_seed, 1 + 3, 0),
    "split at a reduction": (scale_then_sum, split_scale_then_sum, 2, 1),
}


@pytest.mark.parametrize(
    "make_fusion, make_segmentation, clusters, crossings", SEGMENTATIONS.values(), ids=SEGMENTATIONS.keys()
)
def test_segmentation_graph_clusters_and_crossings(make_fusion, make_segmentation, clusters, crossings):
    fusion = make_fusion()
    segmentation = make_segmentation(fusion)
    source = viz.segmentation_graph(fusion, segmentation).source
    assert source.count("subgraph cluster_") == clusters
    assert source.count(viz.CROSSING_COLOR) == 4 * crossings  # colour and font colour of node and edge
    for group in segmentation.groups:
        fill, _ = viz.KIND_COLORS[group.kind]
        assert fill in source


def test_crossing_tensor_shows_size_and_reason_is_escaped():
    fusion = scale_then_sum()
    segmentation = split_scale_then_sum(fusion)
    source = viz.segmentation_graph(fusion, segmentation).source
    assert "256 B through global memory" in source  # 8 x 16 halves
    assert "label=B1" in source
    assert r'tooltip="B1: the sum needs all of \"T1\" & <the> reduction scheduler"' in source
    rows = viz.boundary_rows(fusion, segmentation)
    assert rows == [
        viz.BoundaryRow(
            "B1",
            "T1",
            "256 B",
            0,
            1,
            segmentation.boundaries[0].reason,
        )
    ]


def test_every_expr_is_drawn_once_in_its_cluster():
    fusion = qkv_split()
    source = viz.segmentation_graph(fusion, naive_seed(fusion)).source
    for index in range(len(fusion.exprs)):
        assert len(re.findall(rf"^\s*e{index} \[", source, re.M)) == 1
    cluster_of_e4 = source[: source.index("\te4 [")].rfind("subgraph cluster_g")
    assert source[cluster_of_e4:].startswith("subgraph cluster_g1")


def test_compare_graph_keeps_the_two_sides_apart():
    fusion = qkv_split()
    graph = viz.compare_graph(
        ("naive", fusion, naive_seed(fusion)), ("hfuse", fusion, horizontal_seed(fusion))
    )
    source = graph.source
    assert "naive: 3 kernels" in source and "hfuse: 1 kernel" in source
    assert "L_e0" in source and "R_e0" in source
    assert source.count("subgraph cluster_") == 2 + 3 + 4


def test_every_diagram_is_drawn_on_a_white_card_that_any_page_theme_leaves_readable():
    fusion = qkv_split()
    sides = ("naive", fusion, naive_seed(fusion)), ("hfuse", fusion, horizontal_seed(fusion))
    graphs = (
        viz.ir_graph(fusion),
        viz.segmentation_graph(fusion, naive_seed(fusion)),
        viz.compare_graph(*sides),
    )
    for graph in graphs:
        (top,) = re.findall(r"^\t(bgcolor=.*)$", graph.source, re.M)
        assert f"bgcolor={viz.BACKGROUND} " in top and "pad=" in top


def test_alias_segments_mark_their_outputs_as_views():
    fusion = qkv_split()
    alias = Group(0, SchedulerKind.ALIAS, fusion.exprs, fusion.inputs, fusion.output_names)
    segmentation = Segmentation("hfuse", (alias,), ())
    assert viz.alias_views(fusion, segmentation) == {name: "T0" for name in fusion.output_names}
    source = viz.segmentation_graph(fusion, segmentation).source
    assert "segment 0: alias (no kernel)" in source and source.count("view of T0") == 3


def test_user_text_cannot_break_the_dot():
    fusion = scale_then_sum()
    evil = 'x"]; evil -> node [label="\\n'
    segmentation = Segmentation(
        "hfuse",
        (Group(0, SchedulerKind.POINTWISE, fusion.exprs, fusion.inputs, fusion.output_names, note=evil),),
        (),
    )
    source = viz.segmentation_graph(fusion, segmentation).source
    assert "evil -> node" in source  # inside a quoted, escaped attribute
    assert not re.search(r"^\s*evil -> node", source, re.M)
    assert '\\"]; evil' in source


def test_large_fusions_are_refused_with_the_setting_named(monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_DIAGRAM_EXPRS", "5")
    with pytest.raises(LimitError, match="has 9 ops; diagrams are drawn up to 5 .*HFUSE_MAX_DIAGRAM_EXPRS"):
        viz.ir_graph(qkv_split())


SIZES = {
    "bytes": (512, "512 B"),
    "kilobytes": (2048, "2.0 kB"),
    "seed": (50_331_648, "50.3 MB"),
    "gigabytes": (3 << 30, "3.2 GB"),
}


@pytest.mark.parametrize("count, text", SIZES.values(), ids=SIZES.keys())
def test_format_bytes(count, text):
    assert format_bytes(count) == text


@pytest.mark.skipif(not viz.dot_available(), reason="needs the graphviz `dot` binary")
def test_svg_render_has_the_clusters():
    fusion = qkv_split()
    svg = viz.render_svg(viz.segmentation_graph(fusion, naive_seed(fusion)))
    assert svg.count('class="cluster"') == 3


def test_svg_is_none_without_dot(monkeypatch):
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    assert viz.render_svg(viz.ir_graph(qkv_split())) is None


def _segment(segment_id: int, time_ms: float | None, nbytes: int, kernel: bool = True) -> KernelProfile:
    return KernelProfile(
        f"k{segment_id}", segment_id, "pointwise", (1,), 4, time_ms, 0.0, nbytes // 2, nbytes // 2,
        None if time_ms is None else nbytes / time_ms / 1e6, None, launches_kernel=kernel,
    )  # fmt: skip


def _profile(segments: tuple[KernelProfile, ...], timed: bool) -> FusionProfile:
    return FusionProfile(
        "naive", "cuda", 2, segments, None, 0.1, 0.0, 0, 0, None, None, None, timed, True, 0.0
    )  # fmt: skip


def test_a_runs_share_of_each_segment_is_its_time_on_a_gpu_and_its_bytes_in_the_interpreter():
    segments = (
        _segment(0, 0.03, 4_000_000),
        _segment(1, 0.01, 4_000_000),
        _segment(2, None, 0, kernel=False),
    )
    timed = viz.measured_segments(_profile(segments, timed=True))
    assert [round(timed[i].share, 2) for i in range(3)] == [0.75, 0.25, 0.0]
    assert timed[0].text == "30.0 us, 75% of the time, 133 GB/s" and timed[2].text == "no kernel"
    untimed = viz.measured_segments(_profile(segments, timed=False))
    assert [untimed[i].share for i in range(3)] == [0.5, 0.5, 0.0]
    assert untimed[1].text == "4.0 MB moved, 50% of the bytes"
    assert viz.heat_color(0.0) == "#ffffff" and viz.heat_color(1.0) == "#e6550d"


def test_values_are_labelled_with_the_names_the_script_gave_them():
    from hfuse import load
    from hfuse.examples import get_example

    script = load(get_example("rope").text, device="meta")
    assert script.names["T0"] == "q" and script.names["T12"] == "q_rotated"
    source = viz.ir_graph(script.fusion, names=script.names).source
    assert "T0 (q)" in source and "T12 (q_rotated)" in source
    assert "(q)" not in viz.ir_graph(script.fusion).source
