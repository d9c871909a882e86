"""torch.compile of hfuse's reference (the inductor backend, and the baseline of a script with no plain
torch function) makes one graph of a fusion: a graph break inside the reference's loop over the exprs made
Dynamo compile each expr apart, until its recompile limit sent the rest of the calls to eager."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.reference import evaluate

UNSEEN = Path(__file__).resolve().parent / "unseen"
CASES = {
    "var_mean layernorm": lambda: get_example("var_mean_layernorm", "small").text,
    "residual layernorm": lambda: get_example("residual_layernorm", "small").text,
    "pad with a fill": lambda: get_example("pad", "small").text,
    "welford": lambda: (UNSEEN / "welford_var_from_m2.py").read_text(encoding="utf-8"),
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_the_reference_of_a_fusion_compiles_to_one_graph(text):
    script = load(text(), device="cpu")
    fusion = script.fusion
    graphs = []

    def counting(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module.forward

    torch._dynamo.reset()
    compiled = torch.compile(lambda *inputs: evaluate(fusion, list(inputs)), backend=counting, dynamic=False)
    results = compiled(*script.inputs)
    for got, want in zip(results, evaluate(fusion, list(script.inputs)), strict=True):
        torch.testing.assert_close(got, want, equal_nan=True)
    assert len(graphs) == 1
