"""Graphviz diagrams of a fusion: the IR, its segmentation into kernels, two segmentations side by side.

Every diagram is a `graphviz.Digraph` built with the `graphviz` package (never hand-written DOT,
because invalid DOT renders as nothing in the browser). Labels are plain graphviz strings whose
parts are escaped, so text from a definition cannot change the graph's structure.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field

import graphviz

from hfuse import settings
from hfuse.dtypes import DataType
from hfuse.errors import LimitError
from hfuse.infer.attention import operand_names
from hfuse.ir import Expr, Family, Fusion, Value
from hfuse.runtime.profile_model import FusionProfile
from hfuse.segment.model import Group, SchedulerKind, Segmentation
from hfuse.units import format_bytes

KIND_COLORS = {
    SchedulerKind.ALIAS: ("#eeeeee", "#9e9e9e"),
    SchedulerKind.POINTWISE: ("#dcecff", "#3b7dd8"),
    SchedulerKind.TRANSPOSE: ("#ece1ff", "#7b4fd0"),
    SchedulerKind.REDUCTION: ("#ffe9c7", "#d98b00"),
    SchedulerKind.NORMALIZATION: ("#ffe0e0", "#c94040"),
    SchedulerKind.TORCH: ("#ddf3dd", "#3d9a3d"),
    SchedulerKind.HORIZONTAL: ("#fff6c2", "#b39400"),
}
INPUT_FILL = "#e8f4ea"
OUTPUT_FILL = "#fdf0e6"
CROSSING_COLOR = "#d62728"
BACKGROUND = "white"
ATTR_TEXT_LIMIT = 48
FONT = "Helvetica"


def graph_label(*lines: str) -> str:
    """Lines as one DOT string: backslashes escaped, and never read as an HTML-like `<...>` label."""
    return graphviz.nohtml("\\n".join(graphviz.escape(line) for line in lines))


def _shorten(text: str) -> str:
    return text if len(text) <= ATTR_TEXT_LIMIT else text[: ATTR_TEXT_LIMIT - 3] + "..."


def value_lines(value: Value) -> list[str]:
    if value.is_scalar:
        return [f"{value.name}: {value.dtype.name} scalar"]
    lines = [value.name, f"{value.dtype.name}[{', '.join(str(n) for n in value.shape)}]"]
    if not value.is_contiguous:
        lines.append(_shorten(f"strides {list(value.strides)}"))
    return lines


def _attr_text(value: object) -> str:
    return value.name if isinstance(value, DataType) else repr(value)


def expr_lines(expr: Expr, values: Mapping[str, Value]) -> list[str]:
    if expr.op.family is Family.ATTENTION:
        return _attention_lines(expr, values)
    lines = [expr.op.frontend_name]
    for name in expr.inputs:
        value = values[name]
        if value.is_scalar and value.const is not None:
            lines.append(_shorten(f"{name} = {value.const!r}"))
    lines.extend(_shorten(f"{key}={_attr_text(val)}") for key, val in expr.attrs)
    return lines


def _attention_lines(expr: Expr, values: Mapping[str, Value]) -> list[str]:
    """The op, then its optional tensors and its scalars by their roles (bias: T3, is_causal = True); the
    `has_*` attributes say no more than these lines do."""
    lines = [expr.op.frontend_name]
    for role, name in zip(operand_names(expr.op, expr.attr_dict), expr.inputs, strict=True):
        value = values[name]
        if value.is_scalar and value.const is not None:
            lines.append(_shorten(f"{role} = {value.const!r}"))
        elif value.is_scalar or role in ("bias", "mask", "scale"):
            lines.append(f"{role}: {name}")
    return lines


def check_size(fusion: Fusion) -> None:
    limit = settings.MAX_DIAGRAM_EXPRS.as_int()
    if len(fusion.exprs) > limit:
        raise LimitError(
            f"the fusion has {len(fusion.exprs)} ops; diagrams are drawn up to {limit} "
            f"(raise {settings.MAX_DIAGRAM_EXPRS.env} to draw larger ones)"
        )


def new_graph(name: str) -> graphviz.Digraph:
    graph = graphviz.Digraph(name)
    # A white card with a margin: the colours read the same on a light or a dark page.
    graph.attr(rankdir="TB", fontname=FONT, nodesep="0.25", ranksep="0.35", bgcolor=BACKGROUND, pad="0.2")
    graph.attr("node", fontname=FONT, fontsize="11")
    graph.attr("edge", fontname=FONT, fontsize="10", color="#555555")
    return graph


@dataclass(frozen=True, slots=True)
class _Styles:
    """How the nodes of one fusion are drawn; `prefix` keeps two diagrams apart in one graph."""

    fusion: Fusion
    prefix: str = ""
    names: Mapping[str, str] = field(default_factory=dict)  # value -> the script's name for it

    def value_lines(self, value: Value) -> list[str]:
        """A value's label, its name followed by the script's name for it where the script gave one."""
        lines = value_lines(value)
        if value.name in self.names:
            lines[0] = lines[0].replace(value.name, f"{value.name} ({self.names[value.name]})", 1)
        return lines

    def node_id(self, name: str) -> str:
        """The name itself when it is an identifier (as every IR name is); else a hash of it, since DOT
        reads `a:b` in an edge as node `a`, port `b`, and `<...>` as an HTML string."""
        if name.isidentifier():
            return f"{self.prefix}{name}"
        return f"{self.prefix}value_{hashlib.sha256(name.encode()).hexdigest()[:16]}"

    def expr_id(self, index: int) -> str:
        return f"{self.prefix}e{index}"

    def tensor_nodes(self, graph: graphviz.Digraph, views: Mapping[str, str]) -> None:
        """Inputs and outputs; `views` maps outputs that are strided views to the input they alias."""
        values = self.fusion.value_map
        for name in self.fusion.inputs:
            graph.node(
                self.node_id(name),
                graph_label(*self.value_lines(values[name]), "input"),
                shape="box",
                style="rounded,filled",
                fillcolor=INPUT_FILL,
            )
        for output in self.fusion.outputs:
            lines = self.value_lines(values[output.name])
            style = "rounded,filled"
            if output.alias_input is not None:
                lines.append(f"output, written into {output.alias_input}")
            elif output.name in views:
                lines.append(f"output, view of {views[output.name]}")
                style += ",dashed"
            else:
                lines.append("output")
            graph.node(
                self.node_id(output.name),
                graph_label(*lines),
                shape="box",
                style=style,
                fillcolor=OUTPUT_FILL,
                peripheries="2",
            )

    def expr_node(self, graph: graphviz.Digraph, index: int, expr: Expr) -> None:
        graph.node(
            self.expr_id(index),
            graph_label(*expr_lines(expr, self.fusion.value_map)),
            shape="box",
            style="filled",
            fillcolor="white",
        )

    def intermediate_node(self, graph: graphviz.Digraph, name: str) -> None:
        graph.node(
            self.node_id(name),
            graph_label(*self.value_lines(self.fusion.value(name))),
            shape="ellipse",
            fontsize="10",
        )

    def is_drawn(self, name: str) -> bool:
        value = self.fusion.value(name)
        return not (value.is_scalar and value.const is not None)


def _draw_edges(
    graph: graphviz.Digraph,
    styles: _Styles,
    crossing: Mapping[tuple[str, int], tuple[str, str]] | None = None,
) -> None:
    """Producer -> expr -> output edges; `crossing` maps (tensor, consumer expr) to (label, reason)."""
    crossing = crossing or {}
    for index, expr in enumerate(styles.fusion.exprs):
        for name in dict.fromkeys(expr.inputs):
            if not styles.is_drawn(name):
                continue
            boundary = crossing.get((name, index))
            if boundary is None:
                graph.edge(styles.node_id(name), styles.expr_id(index))
            else:
                label, reason = boundary
                graph.edge(
                    styles.node_id(name),
                    styles.expr_id(index),
                    label=graph_label(label),
                    tooltip=graph_label(f"{label}: {reason}"),
                    color=CROSSING_COLOR,
                    fontcolor=CROSSING_COLOR,
                    penwidth="2",
                )
        for name in expr.outputs:
            graph.edge(styles.expr_id(index), styles.node_id(name))


def ir_graph(
    fusion: Fusion, views: Mapping[str, str] | None = None, names: Mapping[str, str] | None = None
) -> graphviz.Digraph:
    """The fusion as a DAG: inputs, ops with their attributes, intermediate tensors, outputs.

    `views` (output name -> input name) marks outputs that alias analysis made strided views; `names`
    (value name -> the script's variable) adds the names the script gave its values.
    """
    check_size(fusion)
    graph = new_graph("fusion")
    styles = _Styles(fusion, names=names or {})
    styles.tensor_nodes(graph, views or {})
    boundary = set(fusion.inputs) | set(fusion.output_names)
    for index, expr in enumerate(fusion.exprs):
        styles.expr_node(graph, index, expr)
        for name in expr.outputs:
            if name not in boundary:
                styles.intermediate_node(graph, name)
    _draw_edges(graph, styles)
    return graph


def _group_of_exprs(segmentation: Segmentation) -> dict[tuple[str, ...], Group]:
    return {expr.outputs: group for group in segmentation.groups for expr in group.exprs}


def group_title(group: Group) -> str:
    if group.kind is SchedulerKind.ALIAS:
        return f"segment {group.id}: alias (no kernel)"
    if group.kind is SchedulerKind.TORCH:
        return f"segment {group.id}: run by torch (no generated kernel)"
    return f"kernel {group.id}: {group.kind.value} ({group.name})"


def alias_views(fusion: Fusion, segmentation: Segmentation) -> dict[str, str]:
    """Outputs computed by alias segments, mapped to the fusion input each one is a view of."""
    views: dict[str, str] = {}
    producers = {name: expr for expr in fusion.exprs for name in expr.outputs}
    inputs = set(fusion.inputs)
    for group in segmentation.groups:
        if group.kind is not SchedulerKind.ALIAS:
            continue
        for name in group.outputs:
            source = name
            while source in producers and producers[source].inputs:
                source = producers[source].inputs[0]
            if source in inputs:
                views[name] = source
    return views


@dataclass(frozen=True, slots=True)
class Measured:
    """A segment's part of a run, drawn over its box: `share` (0 to 1) of the run's time, or of its bytes
    where times were not measured, shades the box; `text` is added to its title."""

    share: float
    text: str


def measured_segments(profile: FusionProfile) -> dict[int, Measured]:
    """Each segment's share of a run: of its kernel time where times were measured, else of the bytes
    its kernels moved (Triton's interpreter times nothing meaningful)."""
    segments = profile.segment_profiles
    if profile.times_meaningful and any(s.time_ms for s in segments):
        total = sum(s.time_ms or 0.0 for s in segments)
        return {
            s.segment_id: Measured(
                (s.time_ms or 0.0) / total,
                "no kernel"
                if s.time_ms is None
                else f"{s.time_ms * 1e3:,.1f} us, {100 * s.time_ms / total:.0f}% of the time"
                + (f", {s.effective_bandwidth_gbs:,.0f} GB/s" if s.effective_bandwidth_gbs else ""),
            )
            for s in segments
        }
    total_bytes = sum(s.input_bytes + s.output_bytes for s in segments if s.launches_kernel) or 1
    return {
        s.segment_id: Measured(
            (s.input_bytes + s.output_bytes) / total_bytes if s.launches_kernel else 0.0,
            f"{format_bytes(s.input_bytes + s.output_bytes)} moved, "
            f"{100 * (s.input_bytes + s.output_bytes) / total_bytes:.0f}% of the bytes"
            if s.launches_kernel
            else "no kernel",
        )
        for s in segments
    }


@dataclass(frozen=True, slots=True)
class Marked:
    """A segment drawn in the colours of what it is in a comparison rather than its kind's, with `text`
    added to its title."""

    fill: str
    border: str
    text: str
    dashed: bool = False


def heat_color(share: float) -> str:
    """From white (none of the run) to a deep orange (all of it)."""
    share = min(max(share, 0.0), 1.0)
    low, high = (255, 255, 255), (230, 85, 13)
    return "#" + "".join(f"{round(a + (b - a) * share):02x}" for a, b in zip(low, high, strict=True))


def _draw_segmentation(
    graph: graphviz.Digraph,
    fusion: Fusion,
    segmentation: Segmentation,
    prefix: str,
    measured: Mapping[int, Measured] | None = None,
    names: Mapping[str, str] | None = None,
    marks: Mapping[int, Marked] | None = None,
) -> None:
    styles = _Styles(fusion, prefix, names or {})
    styles.tensor_nodes(graph, alias_views(fusion, segmentation))
    owner = _group_of_exprs(segmentation)
    expr_index = {expr.outputs: index for index, expr in enumerate(fusion.exprs)}
    expr_group = {index: owner.get(expr.outputs) for index, expr in enumerate(fusion.exprs)}
    crossing_tensors = {b.tensor for b in segmentation.boundaries}
    crossing_edges: dict[tuple[str, int], tuple[str, str]] = {}
    for number, b in enumerate(segmentation.boundaries, start=1):
        for index, expr in enumerate(fusion.exprs):
            group = expr_group[index]
            if b.tensor in expr.inputs and group is not None and group.id == b.consumer:
                crossing_edges[(b.tensor, index)] = (f"B{number}", b.reason)
    outer = set(fusion.inputs) | set(fusion.output_names) | crossing_tensors

    for group in segmentation.groups:
        fill, border = KIND_COLORS[group.kind]
        title = [group_title(group)]
        if measured is not None:
            part = measured.get(group.id, Measured(0.0, "not measured"))
            fill = heat_color(part.share)
            title.append(part.text)
        mark = (marks or {}).get(group.id)
        if mark is not None:
            fill, border = mark.fill, mark.border
            title.append(mark.text)
        with graph.subgraph(name=f"cluster_{prefix}g{group.id}") as cluster:
            cluster.attr(
                label=graph_label(*title),
                style="rounded,filled" + (",dashed" if mark is not None and mark.dashed else ""),
                fillcolor=fill,
                color=border,
                penwidth="2",
                fontsize="12",
                tooltip=graph_label(group.note or group.name),
            )
            in_branch = set()
            for branch in group.branches:
                with cluster.subgraph(name=f"cluster_{prefix}g{group.id}_b{branch.id}") as sub:
                    sub.attr(
                        label=graph_label(f"branch {branch.id}: {branch.kind.value}"),
                        style="dashed,rounded",
                        color=border,
                        penwidth="1",
                        fontsize="10",
                    )
                    for expr in branch.exprs:
                        in_branch.add(expr.outputs)
                        _draw_expr_and_locals(sub, styles, expr_index[expr.outputs], expr, outer)
            for expr in group.exprs:
                if expr.outputs not in in_branch:
                    _draw_expr_and_locals(cluster, styles, expr_index[expr.outputs], expr, outer)

    ungrouped = [index for index, group in expr_group.items() if group is None]
    for index in ungrouped:
        _draw_expr_and_locals(graph, styles, index, fusion.exprs[index], outer)
    for b in segmentation.boundaries:
        if b.tensor in fusion.output_names or b.tensor in fusion.inputs:
            continue
        value = fusion.value(b.tensor)
        graph.node(
            styles.node_id(b.tensor),
            graph_label(*styles.value_lines(value), f"{format_bytes(value.nbytes)} through global memory"),
            shape="box",
            style="rounded,bold",
            color=CROSSING_COLOR,
            fontcolor=CROSSING_COLOR,
        )
    _draw_edges(graph, styles, crossing_edges)


def _draw_expr_and_locals(
    graph: graphviz.Digraph, styles: _Styles, index: int, expr: Expr, outer: set[str]
) -> None:
    styles.expr_node(graph, index, expr)
    for name in expr.outputs:
        if name not in outer:
            styles.intermediate_node(graph, name)


def segmentation_graph(
    fusion: Fusion,
    segmentation: Segmentation,
    measured: Mapping[int, Measured] | None = None,
    names: Mapping[str, str] | None = None,
) -> graphviz.Digraph:
    """The fusion with one cluster per segment, coloured by scheduler kind, or after a run by each
    segment's share of it (`measured`, by group id; the border keeps the kind's colour). `names` adds the
    script's names of values, as in `ir_graph`.

    Tensors written by one kernel and read by another are drawn in red with their size, and each
    such edge is labelled B1, B2, ... in the order of `segmentation.boundaries` (their reasons are
    the edges' tooltips and are listed by `boundary_rows`).
    """
    check_size(fusion)
    graph = new_graph("segmentation")
    _draw_segmentation(graph, fusion, segmentation, prefix="", measured=measured, names=names)
    return graph


def compare_graph(
    left: tuple[str, Fusion, Segmentation],
    right: tuple[str, Fusion, Segmentation],
    kernel_counts: tuple[int, int] | None = None,
    marks: tuple[Mapping[int, Marked], Mapping[int, Marked]] | None = None,
) -> graphviz.Digraph:
    """Two segmentations side by side, each (title, fusion, segmentation) in a titled outer cluster.

    The fusions may differ (the passes rewrite it differently when outputs may be views or not).
    `kernel_counts`: the CUDA launches of each side (`Compiled.kernel_count`, which counts a split
    reduction twice); by default each segmentation's kernel groups. `marks`: each side's segments drawn
    as what they are in a comparison, by group id.
    """
    graph = new_graph("comparison")
    counts = kernel_counts or (left[2].kernel_count, right[2].kernel_count)
    for prefix, (title, fusion, segmentation), kernels, marked in zip(
        ("L_", "R_"), (left, right), counts, marks or (None, None), strict=True
    ):
        check_size(fusion)
        with graph.subgraph(name=f"cluster_{prefix}side") as side:
            side.attr(
                label=graph_label(f"{title}: {kernels} kernel{'s' if kernels != 1 else ''}"),
                style="solid",
                color="#bbbbbb",
                fontsize="14",
            )
            _draw_segmentation(side, fusion, segmentation, prefix, marks=marked)
    return graph


@dataclass(frozen=True, slots=True)
class BoundaryRow:
    label: str
    tensor: str
    size: str
    producer: int  # group ids: the numbers of the diagram's "kernel N" and "segment N" boxes
    consumer: int
    reason: str


def boundary_rows(fusion: Fusion, segmentation: Segmentation) -> list[BoundaryRow]:
    """The boundaries in the order of their B1, B2, ... edge labels, for a table beside the diagram."""
    return [
        BoundaryRow(
            label=f"B{number}",
            tensor=b.tensor,
            size=format_bytes(fusion.value(b.tensor).nbytes),
            producer=b.producer,
            consumer=b.consumer,
            reason=b.reason,
        )
        for number, b in enumerate(segmentation.boundaries, start=1)
    ]


def dot_available() -> bool:
    return shutil.which("dot") is not None


def render_svg(graph: graphviz.Digraph) -> str | None:
    """The diagram as SVG text, or None where the `dot` binary is not installed."""
    if not dot_available():
        return None
    return graph.pipe(format="svg", encoding="utf-8")
