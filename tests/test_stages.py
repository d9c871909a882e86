"""The compile step by step: each pass's IR with its change, the segmentation, the kernels."""

from __future__ import annotations

import hfuse
from hfuse import DataType, FusionDefinition
from hfuse.stages import compile_stages


def _fusion():
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[4, 8], contiguity=True, dtype=DataType.Float)
        same = fd.ops.cast(x, DataType.Float)  # a no-op the canonicalization folds
        fd.ops.neg(x)  # dead: no output reads it
        fd.add_output(fd.ops.exp(same))
    return fd.fusion()


def test_each_pass_shows_what_it_changed_and_the_kernels_follow_the_cut():
    stages = compile_stages(hfuse.compile(_fusion(), strategy="hfuse", alias_outputs=True))
    names = [s.name for s in stages]
    assert names[:4] == ["as defined", "canonicalized", "dead code removed", "aliases marked"]
    assert names[4] == "segmentation (hfuse)" and names[5:] == ["kernel hfuse_pointwise_g0"]
    defined, canonical, live, marked = stages[:4]
    assert defined.changed and defined.follows is None and defined.diff == ""
    assert canonical.changed and "-" in canonical.diff and "cast" in canonical.diff
    assert live.follows == "canonicalized" and "neg" in live.diff
    assert not marked.changed  # no output of this fusion can stay a view
    assert "@triton.jit" in stages[-1].text and stages[-1].changed
