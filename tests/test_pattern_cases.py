"""`bench/pattern_cases.py`: every script loads with the shape and type its name gives, laid out as it
says, and compiles."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import torch

from hfuse.loader import load
from hfuse.pipeline import compile_fusion

_BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(_BENCH))  # pattern_cases imports column_cases, its neighbour
_SPEC = importlib.util.spec_from_file_location("pattern_cases", _BENCH / "pattern_cases.py")
pattern_cases = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(pattern_cases)
CASES = pattern_cases.cases()
TYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


@pytest.mark.parametrize("name", CASES)
def test_each_pattern_script_loads_as_its_name_says_and_compiles(name):
    tag, sizes = re.search(r"_(fp32|bf16|fp16)_([\dx]+)\.py$", name).groups()
    script = load(CASES[name], device="meta")
    tensor = max((x for x in script.inputs if isinstance(x, torch.Tensor)), key=torch.Tensor.numel)
    assert tensor.dtype is TYPES[tag] and list(tensor.shape) == [int(n) for n in sizes.split("x")]
    if name.startswith("transposed"):
        assert tensor.stride() == (1, tensor.shape[0])
    else:
        assert tensor.is_contiguous() is not name.startswith("permuted")
    assert compile_fusion(script.fusion, alias_outputs=False).kernels
