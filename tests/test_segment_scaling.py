"""Segmentation time grows about linearly with the fusion: each fusion of about a thousand ops here
segments in 0.05-0.2 s of CPU time, where rescanning every pair after each merge took 2-7 s. The bound
is CPU time, which other work on the machine barely moves."""

from __future__ import annotations

import time

import pytest
from segment_cases import BF16, F32, Builder

from hfuse.ir import Fusion, Op
from hfuse.passes import run_passes
from hfuse.segment import segment

SECONDS = 1.5


def _blocks(streams: int = 3, depth: int = 18) -> Fusion:
    """Residual streams side by side, each a sequence of RMSNorm + softmax blocks, every block's hidden
    state saved as an output (as a backward would)."""
    b = Builder()
    for _ in range(streams):
        hidden = b.cast(b.define_tensor((16, 64), BF16), F32)
        weight = b.define_tensor((64,), BF16)
        for _ in range(depth):
            attended = b.softmax(b.cast(b.rms_norm(hidden, weight), F32), dim=1)
            hidden = b.op(Op.ADD, hidden, attended)
            b.add_output(hidden)
    return b.build()


def _wide(chains: int = 100) -> Fusion:
    """Chains of ten pointwise ops, all reading one input."""
    b = Builder()
    x = b.define_tensor((16, 64), F32)
    for _ in range(chains):
        value = x
        for step in range(10):
            value = b.op(Op.TANH, value) if step % 2 else b.op(Op.MUL, value, b.const(0.5))
        b.add_output(value)
    return b.build()


def _chain(length: int = 1000) -> Fusion:
    b = Builder()
    value = b.define_tensor((16, 64), F32)
    for step in range(length):
        value = b.op(Op.TANH, value) if step % 2 else b.op(Op.ADD, value, b.const(0.01))
    b.add_output(value)
    return b.build()


@pytest.mark.parametrize("strategy", ["hfuse", "naive"])
@pytest.mark.parametrize("build", [_blocks, _wide, _chain], ids=["blocks", "wide", "chain"])
def test_a_thousand_op_fusion_segments_quickly(build, strategy):
    passed = run_passes(build(), alias_outputs=strategy == "hfuse")
    assert len(passed.fusion.exprs) >= 900
    start = time.process_time()
    segmentation = segment(passed.fusion, strategy=strategy, alias=passed.aliases)
    seconds = time.process_time() - start
    assert segmentation.groups
    assert seconds < SECONDS, f"{len(passed.fusion.exprs)} ops took {seconds:.1f} s to segment"
