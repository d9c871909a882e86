"""`bench/reshaped_cases.py`: every re-shaped script loads at its new sizes, and its case has the plain torch
function its comparison compiles."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from hfuse.baselines import baseline
from hfuse.loader import load

_PATH = Path(__file__).resolve().parent.parent / "bench" / "reshaped_cases.py"
_SPEC = importlib.util.spec_from_file_location("reshaped_cases", _PATH)
reshaped_cases = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(reshaped_cases)
CASES = reshaped_cases.cases()


def test_a_map_replaces_whole_integers_at_once_and_leaves_comments():
    text = "# [8,2048,4096]\nx = f(shape=[8, 2048, 4096], s=4096.0, dt=DataType.BFloat16, n=48)\n"
    new = reshaped_cases.reshaped(text, {"8": "4", "2048": "4096", "4096": "3584"})
    assert new == "# [8,2048,4096]\nx = f(shape=[4, 4096, 3584], s=3584.0, dt=DataType.BFloat16, n=48)\n"


@pytest.mark.parametrize("name", CASES)
def test_each_reshaped_script_loads_at_its_new_sizes(name):
    text = CASES[name]
    size, case, changes = re.match(r"# (\w+)/(\w+) re-shaped: (.*)\n", text).groups()
    original = (reshaped_cases.EXAMPLES / size / f"{case}.py").read_text(encoding="utf-8")
    assert text.split("\n", 1)[1] != original
    new_sizes = {int(change.split(" -> ")[1]) for change in changes.split(", ")}
    script = load(text, device="meta")
    shapes = {n for x in script.inputs if hasattr(x, "shape") for n in x.shape}
    assert new_sizes & shapes, (new_sizes, shapes)
    assert baseline(case, f"extended-{size}")
