"""On a CUDA device: fusions that round a product before an add or a sum uses it (tests/rounding_cases.py)
give the torch reference's values bitwise, under hfuse and naive, on several random inputs.

Every op of these fusions is correctly rounded in torch and, with contraction off, in the kernels (a bf16 or
fp16 product is exact in fp32, and fp32 sums of two such values round to them as one rounding would), so the
two agree bit for bit. With a product contracted into an fma the RoPE fusions put about 0.5% of their
elements outside the bf16 tolerance.
"""

from __future__ import annotations

import pytest
import rounding_cases

from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.tolerance import assert_close, reduction_size

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]

SIZE = 256  # rope: a batch of 256 [16, 2, 128] heads (1M elements); the others: 256 rows of 1024
SEEDS = range(4)


@pytest.mark.parametrize("backend", ["hfuse", "naive"])
@pytest.mark.parametrize("name, dtype", rounding_cases.PARAMS, ids=rounding_cases.IDS)
def test_rounded_products_give_the_references_values_bitwise(name, dtype, backend):
    make, _ = rounding_cases.CASES[name]
    fusion = make(dtype, SIZE)
    (output,) = fusion.output_names
    for seed in SEEDS:
        inputs = rounding_cases.random_inputs(fusion, "cuda", seed)
        (expected,) = evaluate(fusion, [x.clone() for x in inputs])
        (got,), _, _ = execute(fusion, [x.clone() for x in inputs], backend=backend, alias_outputs=False)
        assert_close(got, expected, reduction_size=reduction_size(fusion, output))
        differ = int((got != expected).sum())
        assert differ == 0, f"seed {seed}: {differ} of {got.numel()} elements differ from torch's"
