"""On a CUDA device: fusions past int32 run and match the reference."""

from __future__ import annotations

import pytest
import torch
from wide_cases import WIDE_SHAPE, wide_softmax

from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.tolerance import compare, reduction_size

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]


def test_a_softmax_over_more_than_int32_elements_matches_the_reference():
    fusion = wide_softmax()
    row = torch.randn(WIDE_SHAPE[1], device="cuda", dtype=torch.bfloat16)
    x = row.expand(WIDE_SHAPE)
    (got,), _, _ = execute(fusion, [x], backend="hfuse", alias_outputs=False)  # validated on first run
    (want,) = evaluate(fusion, [x])
    out = fusion.outputs[0].name
    comparison = compare(got, want, fusion.value(out).dtype, reduction_size(fusion, out))
    assert comparison.ok, comparison.message
