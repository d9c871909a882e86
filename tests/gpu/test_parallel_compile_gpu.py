"""On a CUDA device: a new plan's kernels compile side by side in children, and its first launches only
load them from Triton's cache (every compile the process asks for is a cache hit), with the right
outputs."""

from __future__ import annotations

import importlib
import random

import pytest
import torch

from hfuse import settings
from hfuse.loader import load
from hfuse.runtime import prepare
from hfuse.runtime.kernel_cache import load_kernel
from hfuse.runtime.parallel_compile import jit_functions

# Triton only after hfuse.runtime, which puts it in interpreter mode where there is no GPU
knobs = importlib.import_module("triton.knobs")

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]

SCRIPT = """
with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[64, 3000], contiguity=[True, True], dtype=DataType.Float)
    c = fd.define_scalar({constant!r}, dtype=DataType.Double)
    y = fd.ops.mul(x, c)
    s = fd.ops.sum(y, dims=[1])
    m = fd.ops.max(y, dims=[0])
    fd.add_output(s)
    fd.add_output(m)
"""


@pytest.mark.parametrize("side_by_side", [True, False])
def test_a_new_plans_kernels_compile_in_children_and_load_at_launch(tmp_path, monkeypatch, side_by_side):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv(settings.PARALLEL_COMPILE.env, "1" if side_by_side else "0")
    constant = round(random.uniform(1.0, 2.0), 6)  # kernels no earlier test compiled in this process
    script = load(SCRIPT.format(constant=constant), device="cuda")
    x = torch.randn(64, 3000, device="cuda")
    plan = prepare(script.fusion, [x])
    kernels = sum(len(jit_functions(load_kernel(k))) for k in plan.compiled.kernels)
    assert kernels >= 2, "the fusion must have several kernels to compile side by side"
    cache_hits = []  # for each compile this process asks of Triton, whether its disk cache had it
    monkeypatch.setattr(knobs.compilation, "listener", lambda **kw: cache_hits.append(kw["cache_hit"]))
    (s, m), _ = plan.run([x])
    y = (x.double() * constant).float()
    torch.testing.assert_close(s, y.sum(1), rtol=1e-5, atol=1e-3)
    torch.testing.assert_close(m, y.amax(0))
    assert len(cache_hits) == kernels
    assert len(list((tmp_path / "triton").rglob("*.cubin"))) == kernels
    if side_by_side:
        assert all(cache_hits) and "compile kernels" in plan.stage_ms
    else:
        assert not any(cache_hits) and "compile kernels" not in plan.stage_ms
