"""One HTML page that links a segmentation diagram with its kernels' source, both ways.

A click on a value or an op of the diagram shows the kernel that computes it (else one that reads it) with
the value's lines marked (`codegen.provenance`: its comment, the lines that compute it, those that use
it); a click on a kernel's box shows its source; a click on a line of source marks the diagram's nodes of
the values that line computes or uses. It needs no server: the diagram is graphviz's SVG, the source and
the links between them are data in the page, and a small script does the rest. Every text from the
fusion is escaped (graphviz escapes its labels; the source and names are escaped here, and the data is
JSON with every `<` escaped, so that no text can end its script element). Its colours follow the
browser's light or dark setting; the diagram keeps its white card in both.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hfuse.codegen.provenance import computed_values, value_lines
from hfuse.viz import BACKGROUND, group_title

if TYPE_CHECKING:
    from hfuse.pipeline import Compiled

_SVG_START = re.compile(r"<svg\b")
_SIZE = re.compile(r'\s(width|height)="[^"]*"')


def linked_view_html(svg: str, compiled: Compiled, names: Mapping[str, str] | None = None) -> str:
    """The page for `compiled`'s segmentation drawn as `svg` (`viz.segmentation_graph`, rendered)."""
    data = _links(compiled, names or {})
    kernels = "".join(_kernel_block(group_id, kernel) for group_id, kernel in data["kernels"].items())
    return _PAGE.format(
        svg=_fit(svg),
        background=BACKGROUND,
        kernels=kernels,
        data=json.dumps(data).replace("<", "\\u003c"),  # no text can end the script element
    )


def _links(compiled: Compiled, names: Mapping[str, str]) -> dict:
    fusion = compiled.scheduled
    kernels, owner, readers = {}, {}, {}
    for group in compiled.segmentation.groups:
        kernel = compiled.kernel_of(group)
        if kernel is None:
            continue
        values = list(dict.fromkeys([*kernel.inputs, *computed_values(kernel.source), *kernel.outputs]))
        lines = kernel.source.splitlines()
        of_line: list[list[str]] = [[] for _ in lines]
        for value in values:
            for number in value_lines(kernel.source, value):
                of_line[number - 1].append(value)
        kernels[group.id] = {
            "title": group_title(group),
            "name": kernel.name,
            "lines": lines,
            "values": of_line,
        }
        for value in group.outputs:
            owner.setdefault(value, group.id)
        for expr in group.exprs:
            for value in expr.outputs:
                owner.setdefault(value, group.id)
        for value in group.inputs:
            readers.setdefault(value, []).append(group.id)
    exprs = {f"e{index}": list(expr.outputs) for index, expr in enumerate(fusion.exprs)}
    return {
        "kernels": kernels,
        "owner": owner,
        "readers": readers,
        "exprs": exprs,
        "names": dict(names),
    }


def _kernel_block(group_id: int, kernel: dict) -> str:
    rows = "".join(
        f'<div class="line" data-line="{n}"><span class="number">{n + 1}</span>'
        f"{html.escape(text) or ' '}</div>"
        for n, text in enumerate(kernel["lines"])
    )
    title = html.escape(kernel["title"])
    return (
        f'<section class="kernel" data-group="{group_id}" hidden><h3>{title}</h3><pre>{rows}</pre></section>'
    )


def _fit(svg: str) -> str:
    """The SVG element alone (no XML prolog), scaled to its column's width."""
    start = _SVG_START.search(svg)
    body = svg[start.start() :] if start else ""
    return _SIZE.sub("", body, count=2).replace("<svg", '<svg class="diagram"', 1)


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><style>
:root {{ color-scheme: light dark; --text: #222; --muted: #555; --page: #fff; --border: #ddd;
  --heading: #f6f6f6; --hover: #f1f3f5; --marked: #fff3bf; --number: #999; }}
@media (prefers-color-scheme: dark) {{
  :root {{ --text: #e8e6e3; --muted: #a8a6a3; --page: #171614; --border: #3d3b38; --heading: #262522;
    --hover: #2b2a27; --marked: #5a4a0a; --number: #8a8884; }}
}}
body {{ margin: 0; font-family: sans-serif; font-size: 13px; color: var(--text); background: var(--page); }}
.panes {{ display: flex; gap: 12px; height: calc(100vh - 34px); }}
.pane {{ overflow: auto; border: 1px solid var(--border); border-radius: 6px; }}
#diagram {{ flex: 11; background: {background}; }} #code {{ flex: 9; }}
svg.diagram {{ width: 100%; height: auto; }}
svg .node, svg .cluster {{ cursor: pointer; }}
svg .node.picked polygon, svg .node.picked ellipse, svg .node.picked path {{
  stroke: #d6336c; stroke-width: 4px; }}
#hint {{ height: 26px; padding: 4px 2px; color: var(--muted); white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }}
h3 {{ margin: 0; padding: 8px 10px; font-size: 13px; background: var(--heading); position: sticky; top: 0; }}
pre {{ margin: 0; font-size: 12px; line-height: 1.45; }}
.line {{ padding: 0 8px; white-space: pre-wrap; cursor: pointer; }}
.line:hover {{ background: var(--hover); }}
.line.marked {{ background: var(--marked); }}
.number {{ display: inline-block; width: 3.2em; color: var(--number); user-select: none; }}
</style></head><body>
<div id="hint">Click a value, an op or a kernel's box in the diagram, or a line of code.</div>
<div class="panes">
  <div class="pane" id="diagram">{svg}</div>
  <div class="pane" id="code">{kernels}</div>
</div>
<script id="links" type="application/json">{data}</script>
<script>
const links = JSON.parse(document.getElementById("links").textContent);
const hint = document.getElementById("hint");
const titleOf = (g) => (g.querySelector(":scope > title") || {{}}).textContent || "";
const valuesOfNode = (id) => links.exprs[id] || [id];
function show(group) {{
  let shown = null;
  document.querySelectorAll("section.kernel").forEach((s) => {{
    s.hidden = s.dataset.group !== String(group);
    if (!s.hidden) shown = s;
  }});
  return shown;
}}
function clear() {{
  document.querySelectorAll(".line.marked").forEach((l) => l.classList.remove("marked"));
  document.querySelectorAll("svg .node.picked").forEach((n) => n.classList.remove("picked"));
}}
function say(text) {{ hint.textContent = text; }}
function named(value) {{ return links.names[value] ? value + " (" + links.names[value] + ")" : value; }}
function pickValues(values, node) {{
  clear();
  if (node) node.classList.add("picked");
  const group = values.map((v) => links.owner[v] ?? (links.readers[v] || [])[0]).find((g) => g !== undefined);
  const shown = group === undefined ? null : show(group);
  if (!shown) {{ say(values.map(named).join(", ") + ": no kernel computes or reads it."); return; }}
  const lines = [...shown.querySelectorAll(".line")].filter((line) =>
    links.kernels[group].values[Number(line.dataset.line)].some((v) => values.includes(v)));
  lines.forEach((line) => line.classList.add("marked"));
  say(values.map(named).join(", ") + ": " + lines.length + " lines of " + links.kernels[group].name);
  if (lines.length) lines[0].scrollIntoView({{ block: "center" }});
}}
document.querySelectorAll("svg .node").forEach((node) => {{
  node.addEventListener("click", (event) => {{
    event.stopPropagation();
    pickValues(valuesOfNode(titleOf(node)), node);
  }});
}});
document.querySelectorAll("svg .cluster").forEach((cluster) => {{
  cluster.addEventListener("click", () => {{
    const match = titleOf(cluster).match(/^cluster_g(\\d+)/);
    if (!match || !links.kernels[match[1]]) return;
    clear();
    show(match[1]);
    say(links.kernels[match[1]].title + ": " + links.kernels[match[1]].name);
  }});
}});
document.querySelectorAll("section.kernel").forEach((section) => {{
  const group = section.dataset.group;
  section.querySelectorAll(".line").forEach((line) => {{
    line.addEventListener("click", () => {{
      clear();
      line.classList.add("marked");
      const values = links.kernels[group].values[Number(line.dataset.line)];
      const nodes = [...document.querySelectorAll("svg .node")].filter((node) =>
        valuesOfNode(titleOf(node)).some((v) => values.includes(v)));
      nodes.forEach((node) => node.classList.add("picked"));
      say(values.length ? "line " + (Number(line.dataset.line) + 1) + ": " + values.map(named).join(", ")
                        : "line " + (Number(line.dataset.line) + 1) + " computes no IR value by itself");
      if (nodes.length) nodes[0].scrollIntoView({{ block: "center", inline: "center" }});
    }});
  }});
}});
const first = Object.keys(links.kernels)[0];
if (first !== undefined) show(first);
</script>
</body></html>
"""
