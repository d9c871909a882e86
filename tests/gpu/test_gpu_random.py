"""On a CUDA device: random ops at training sizes draw the reference's numbers (the Philox words and the
uniform values bitwise, normal values within the dtype's tolerance), under hfuse and naive."""

from __future__ import annotations

import pytest
import torch

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.tolerance import assert_close

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]

DTYPES = [DataType.Float, DataType.BFloat16, DataType.Half, DataType.Double]
SHAPE = (1, 2048, 12288)  # a Thunder dropout of an MLP activation


def _dropout(dtype: DataType) -> Fusion:
    """Thunder's dropout (uniform(0, 1) with seed and offset inputs, lt, cast, mul, scale), and noise."""
    b = FusionBuilder()
    offset, seed = b.define_scalar(DataType.Int), b.define_scalar(DataType.Int)
    x = b.define_tensor(SHAPE, dtype)
    zero, one = b.define_scalar(DataType.Double, const=0.0), b.define_scalar(DataType.Double, const=1.0)
    (u,) = b.add(Op.UNIFORM, [zero, one, seed, offset], {"shape": SHAPE, "dtype": dtype})
    (keep,) = b.add(Op.LT, [u, b.define_scalar(DataType.Double, const=0.9)])
    (mask,) = b.add(Op.CAST, [keep], {"dtype": DataType.Float})
    (kept,) = b.add(Op.MUL, [b.add(Op.CAST, [x], {"dtype": DataType.Float})[0], mask])
    (scaled,) = b.add(Op.MUL, [kept, b.define_scalar(DataType.Double, const=1 / 0.9)])
    (noise,) = b.add(Op.NORMAL, [zero, one, seed, b.define_scalar(DataType.Int, const=7)], {"shape": SHAPE})
    for out in (keep, b.add(Op.CAST, [scaled], {"dtype": dtype})[0], u, noise):
        b.add_output(out)
    return b.build()


@pytest.mark.parametrize("backend", ["hfuse", "naive"])
@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_a_training_size_dropout_draws_the_references_numbers(dtype, backend):
    fusion = _dropout(dtype)
    inputs = [2**33 + 5, 4521290340, torch.randn(SHAPE, device="cuda").to(dtype.torch)]
    outputs, _, _ = execute(fusion, inputs, backend=backend)  # the first run is validated, too
    keep, dropped, uniform, noise = outputs
    want_keep, want_dropped, want_uniform, want_noise = evaluate(fusion, inputs)
    assert torch.equal(uniform, want_uniform) and torch.equal(keep, want_keep)
    assert_close(dropped, want_dropped)
    assert_close(noise, want_noise)
    # bf16 values are 2^-8 apart, and those that round to 1 become 0 (as in nvFuser): a little more is kept
    assert abs(keep.float().mean().item() - 0.9) < 5e-3
