"""The seed: nanoGPT's QKV split, three slice -> reshape -> permute chains of one input.

With aliasing it needs no kernel (the outputs are strided views of the input); without, one
horizontally fused kernel; the naive strategy launches one kernel per chain.
"""

from __future__ import annotations

import pytest
import torch

import hfuse
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op
from hfuse.runtime import execute

SMALL = (2, 16, 384, 2)  # batch, sequence, 3 x hidden, heads: runs in the interpreter in well under a second
REAL = (16, 128, 3072, 16)  # the shape of the report; only segmented here, never run


pytestmark = pytest.mark.usefixtures("fresh_cache")


def seed_fusion(batch: int, seq: int, width: int, heads: int) -> Fusion:
    hidden = width // 3
    b = FusionBuilder()
    x = b.define_tensor([batch, seq, width], DataType.Float)
    for part in range(3):
        bounds = {"starts": [0, 0, part * hidden], "ends": [batch, seq, (part + 1) * hidden]}
        (piece,) = b.add(Op.SLICE, [x], {**bounds, "strides": [1, 1, 1]})
        (split,) = b.add(Op.RESHAPE, [piece], {"new_shape": [batch, seq, heads, hidden // heads]})
        (head_major,) = b.add(Op.PERMUTE, [split], {"dims": [0, 2, 1, 3]})
        b.add_output(head_major)
    return b.build()


def torch_seed(x: torch.Tensor, heads: int) -> list[torch.Tensor]:
    batch, seq, width = x.shape
    hidden = width // 3
    parts = x.split(hidden, dim=-1)
    return [part.reshape(batch, seq, heads, hidden // heads).permute(0, 2, 1, 3) for part in parts]


STRATEGIES = [
    # (backend, alias_outputs, kernels)
    ("hfuse", True, 0),
    ("hfuse", False, 1),
    ("naive", False, 3),
]
STRATEGY_IDS = ["aliased", "one-kernel", "naive"]


@pytest.mark.parametrize("backend, alias_outputs, kernels", STRATEGIES, ids=STRATEGY_IDS)
def test_seed_segments_into_the_expected_kernel_count_at_the_real_shape(backend, alias_outputs, kernels):
    compiled = hfuse.compile(seed_fusion(*REAL), strategy=backend, alias_outputs=alias_outputs)
    assert compiled.kernel_count == kernels == len(compiled.kernels)


@pytest.mark.parametrize("backend, alias_outputs, kernels", STRATEGIES, ids=STRATEGY_IDS)
def test_seed_outputs_equal_torch(backend, alias_outputs, kernels, device):
    x = torch.randn(SMALL[:3], device=device)
    outputs, _, compiled = execute(seed_fusion(*SMALL), [x], backend=backend, alias_outputs=alias_outputs)
    assert compiled.kernel_count == kernels
    for actual, expected in zip(outputs, torch_seed(x, SMALL[3]), strict=True):
        assert torch.equal(actual, expected)
        shares_storage = actual.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert shares_storage == alias_outputs
        if alias_outputs:
            assert actual.stride() == expected.stride()


@pytest.mark.parametrize("backend, alias_outputs, kernels", STRATEGIES, ids=STRATEGY_IDS)
def test_seed_profile_counts_input_and_output_bytes_exactly(backend, alias_outputs, kernels, device):
    x = torch.randn(SMALL[:3], device=device)
    fusion = seed_fusion(*SMALL)
    outputs, profile, _ = execute(fusion, [x], backend=backend, alias_outputs=alias_outputs, profile=True)
    launched = [k for k in profile.segment_profiles if k.launches_kernel]
    assert profile.segments == len(launched) == kernels
    moved = 0 if alias_outputs else x.nbytes
    assert (profile.input_bytes, profile.output_bytes) == (moved, moved)
    assert sum(o.nbytes for o in outputs) == x.nbytes
    if kernels == 1:
        assert (launched[0].input_bytes, launched[0].output_bytes) == (x.nbytes, x.nbytes)
    assert profile.kernel_profiles == tuple(launched)  # the kernels launched, as nvFuser lists them
    for kernel in profile.segment_profiles:
        if not kernel.launches_kernel:
            assert (kernel.scheduler, kernel.input_bytes, kernel.output_bytes) == ("alias", 0, 0)
    assert profile.validated
