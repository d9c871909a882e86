"""Which lines of a generated kernel compute which IR value."""

from __future__ import annotations

import hfuse
from hfuse.codegen.provenance import computed_values, value_lines
from hfuse.examples import get_example


def _softmax_source() -> str:
    script = hfuse.load(get_example("softmax").text, device="meta")
    (kernel,) = hfuse.compile(script.fusion, strategy="hfuse", alias_outputs=True).kernels
    return kernel.source


def test_a_values_lines_are_its_comment_its_computation_and_its_uses():
    source = _softmax_source()
    lines = source.splitlines()
    shown = {n: lines[n - 1].strip() for n in value_lines(source, "T3")}
    assert [text for text in shown.values() if text.startswith("#")] == ["# T3 = fd.ops.sub(T0, T2)"]
    assert any(text.startswith("t3 = ") for text in shown.values())  # where it is computed
    assert any("tl.exp(t3)" in text for text in shown.values())  # where T4 reads it
    assert all("t3" in text or "T3" in text for text in shown.values())


def test_a_kernel_names_every_value_it_computes_and_an_input_is_found_by_its_load():
    source = _softmax_source()
    assert {"T1", "T3", "T4", "T5", "T7"} <= set(computed_values(source))
    loads = [n for n in value_lines(source, "T0") if "tl.load(t0_ptr" in source.splitlines()[n - 1]]
    assert len(loads) == 1
    assert value_lines(source, "T99") == []
