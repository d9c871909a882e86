"""The difference of two fusions drawn: the second fusion's graph with its ops and values coloured as added,
changed or the same (`hfuse.fusion_diff`), the first fusion's removed ops drawn dashed where they were, and
a legend; and the difference of their cuts into kernels (`hfuse.segment_diff`): both segmentations side by
side, each segment coloured as the same, changed, added or removed. Built with the `graphviz` package, as
every diagram of `hfuse.viz`."""

from __future__ import annotations

import itertools

import graphviz

from hfuse.fusion_diff import FusionDiff, Status
from hfuse.ir import Fusion
from hfuse.segment.model import Segmentation
from hfuse.segment_diff import SegmentationDiff
from hfuse.viz import Marked, check_size, compare_graph, expr_lines, graph_label, new_graph, value_lines

DIFF_COLORS: dict[Status, tuple[str, str]] = {  # fill, border
    "same": ("#ffffff", "#9e9e9e"),
    "changed": ("#ffe9c7", "#d98b00"),
    "added": ("#d9f2d9", "#2e8b2e"),
    "removed": ("#fde0e0", "#d62728"),
}


def legend(titles: tuple[str, str]) -> dict[Status, str]:
    """What each colour means, for two fusions with these titles (as "in this one")."""
    return _words(titles, "the same in both", "other attributes, shapes or operands")


def segment_legend(titles: tuple[str, str]) -> dict[Status, str]:
    """What each colour of a segmentation difference means."""
    return _words(titles, "the same segment in both", "other ops, scheduler or tensors")


def _words(titles: tuple[str, str], same: str, what_changes: str) -> dict[Status, str]:
    return {
        "same": same,
        "changed": f"changed: {what_changes}",
        "added": f"added: only {titles[1]}",
        "removed": f"removed: only {titles[0]}",
    }


def diff_graph(before: Fusion, after: Fusion, diff: FusionDiff, titles: tuple[str, str]) -> graphviz.Digraph:
    """`after` drawn with each op and value coloured by `diff`, `before`'s removed ops beside the values
    they read; `titles` name the two fusions in the legend."""
    check_size(after)
    graph = new_graph("fusion_diff")
    words = legend(titles)
    made_by = {
        name: status for expr, status in zip(after.exprs, diff.exprs, strict=True) for name in expr.outputs
    }
    made_by.update(zip(after.inputs, diff.inputs, strict=True))
    values = after.value_map
    for name, status in made_by.items():
        role = "input" if name in after.inputs else "output" if name in after.output_names else ""
        lines = [*value_lines(values[name]), *([role] if role else [])]
        _node(graph, f"v_{name}", lines, status, "box" if role else "ellipse", words, rounded=bool(role))
    for index, (expr, status) in enumerate(zip(after.exprs, diff.exprs, strict=True)):
        _node(graph, f"e{index}", expr_lines(expr, values), status, "box", words)
        for name in dict.fromkeys(expr.inputs):
            if name in made_by:
                graph.edge(f"v_{name}", f"e{index}")
        for name in expr.outputs:
            graph.edge(f"e{index}", f"v_{name}")
    stands_for = {old: new for new, old in diff.partner.items()}
    for index in diff.removed:
        expr = before.exprs[index]
        lines = [*expr_lines(expr, before.value_map), f"made {', '.join(expr.outputs)}"]
        _node(graph, f"removed_e{index}", lines, "removed", "box", words)
        for name in dict.fromkeys(expr.inputs):
            if name in stands_for:
                color = DIFF_COLORS["removed"][1]
                graph.edge(f"v_{stands_for[name]}", f"removed_e{index}", style="dashed", color=color)
    _legend(graph, f"{titles[1]}, against {titles[0]}", words)
    return graph


def segmentation_diff_graph(
    before: tuple[Fusion, Segmentation, int],
    after: tuple[Fusion, Segmentation, int],
    diff: SegmentationDiff,
    titles: tuple[str, str],
) -> graphviz.Digraph:
    """Both plans side by side, each (the fusion its segments hold, the segmentation, its kernel launches),
    every segment coloured by what `diff` says of it and titled with its partner's id; and a legend."""
    old_marks: dict[int, Marked] = {}
    new_marks: dict[int, Marked] = {}
    for match in diff.matches:
        fill, border = DIFF_COLORS[match.status]
        if match.before is not None:
            text = (
                "removed" if match.after is None else f"{match.status}: segment {match.after.id} {titles[1]}"
            )
            old_marks[match.before.id] = Marked(fill, border, text, dashed=match.after is None)
        if match.after is not None:
            text = (
                "added" if match.before is None else f"{match.status}: segment {match.before.id} {titles[0]}"
            )
            new_marks[match.after.id] = Marked(fill, border, text)
    graph = compare_graph(
        (titles[0], before[0], before[1]),
        (titles[1], after[0], after[1]),
        (before[2], after[2]),
        marks=(old_marks, new_marks),
    )
    _legend(graph, f"segments {titles[1]}, against {titles[0]}", segment_legend(titles), stacked=True)
    return graph


def _node(
    graph: graphviz.Digraph,
    node_id: str,
    lines: list[str],
    status: Status,
    shape: str,
    words: dict[Status, str],
    *,
    rounded: bool = False,
) -> None:
    fill, border = DIFF_COLORS[status]
    style = "filled" + (",dashed" if status == "removed" else "") + (",rounded" if rounded else "")
    graph.node(
        node_id,
        graph_label(*lines),
        shape=shape,
        style=style,
        fillcolor=fill,
        color=border,
        penwidth="1" if status == "same" else "2",
        tooltip=graph_label(words[status]),
    )


def _legend(graph: graphviz.Digraph, title: str, words: dict[Status, str], *, stacked: bool = False) -> None:
    """The colours in a row, or `stacked` in a column (beside two plans, where a row would make the
    diagram too wide to read)."""
    with graph.subgraph(name="cluster_legend") as legend:
        legend.attr(label=graph_label(title), style="rounded", color="#bbbbbb")
        if not stacked:
            legend.attr(rank="same")
        order = list(words) if stacked else list(reversed(words))  # a rank is laid out right to left
        for status in order:
            _node(legend, f"legend_{status}", [words[status]], status, "box", words)
        if stacked:
            for upper, lower in itertools.pairwise(order):
                legend.edge(f"legend_{upper}", f"legend_{lower}", style="invis")
