"""The linked view's page: one block per kernel, each line tied to the IR values it computes or uses, the
diagram's ops tied to their values, and nothing from the fusion able to end the page's script."""

from __future__ import annotations

import json
import re

from hfuse.codegen.provenance import value_lines
from hfuse.examples import get_example
from hfuse.linked_view import linked_view_html
from hfuse.loader import load
from hfuse.pipeline import compile_fusion

SVG = (
    '<?xml version="1.0"?>\n'
    '<svg width="10pt" height="20pt" viewBox="0 0 10 20"><g class="node"><title>T1</title></g></svg>'
)


def _page(example: str, names: dict[str, str] | None = None, subset: str = "small"):
    script = load(get_example(example, subset).text, device="cpu")
    compiled = compile_fusion(script.fusion, strategy="hfuse", alias_outputs=True)
    page = linked_view_html(SVG, compiled, names if names is not None else script.names)
    data = json.loads(re.search(r'<script id="links" type="application/json">(.*?)</script>', page, re.S)[1])
    return compiled, page, data


def test_every_kernel_has_its_source_and_every_line_its_values():
    compiled, page, data = _page("layernorm_backward", None, "extended")  # two kernels at this size
    kernels = {group.id: compiled.kernel_of(group) for group in compiled.segmentation.groups}
    kernels = {group: kernel for group, kernel in kernels.items() if kernel is not None}
    assert len(kernels) >= 2
    assert sorted(map(int, data["kernels"])) == sorted(kernels)
    for group, kernel in kernels.items():
        shown = data["kernels"][str(group)]
        assert shown["lines"] == kernel.source.splitlines()
        for value in kernel.outputs:
            marked = [n + 1 for n, values in enumerate(shown["values"]) if value in values]
            assert marked == value_lines(kernel.source, value) and marked
        assert page.count(f'data-group="{group}"') == 1


def test_the_diagrams_ops_name_their_outputs_and_each_value_its_kernel():
    compiled, _, data = _page("layernorm", None)
    assert data["exprs"] == {f"e{i}": list(e.outputs) for i, e in enumerate(compiled.scheduled.exprs)}
    (group,) = compiled.segmentation.groups
    assert all(data["owner"][value] == group.id for value in group.outputs)


def test_the_svg_fits_its_pane_without_its_prolog():
    _, page, _ = _page("layernorm")
    assert "<?xml" not in page and '<svg class="diagram" viewBox="0 0 10 20">' in page


def test_no_name_can_end_the_script_or_open_a_tag():
    hostile = "</script><script>alert(1)</script>"
    _, page, data = _page("layernorm", {"T17": hostile})
    assert hostile not in page and "<script>alert" not in page
    assert data["names"]["T17"] == hostile  # the data keeps the text; only its encoding differs
