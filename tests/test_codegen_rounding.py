"""Kernels keep every rounding of the fusion in the machine code a GPU runs.

Triton's interpreter computes op by op with numpy, so it cannot show what the GPU compiler does to a
kernel's math. Here each kernel is compiled, as its module launches it, for an sm_90 GPU (H100, H200) on the
CPU (ptx_of_kernels.py), and its PTX is read. hfuse has no fma op, so an fma in the PTX is a contraction of
a * b + c, which skips the rounding of a * b: for bf16 and fp16 products, a rounding the fusion makes (LLVM
narrows `bf16(bf16(a * b) + c)` of bf16 values to a bf16 mul and a bf16 add, then contracts the two), off
from torch by up to half an ulp of a * b; nvFuser's RoPE benchmark definitions failed validation on an
H200 so.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import rounding_cases
from triton.backends import backends

from hfuse.pipeline import compile_fusion

pytestmark = pytest.mark.skipif("nvidia" not in backends, reason="this Triton has no NVIDIA backend")

COMPILER = Path(__file__).resolve().parent / "ptx_of_kernels.py"
REPO = COMPILER.parents[1]


@pytest.fixture(scope="module")
def ptx_of_case(tmp_path_factory) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(case, dtype name) -> (kernel name, PTX) of each launch of the case's kernels, from one child."""
    folder = tmp_path_factory.mktemp("rounding-kernels")
    manifest, owners = [], []
    for name, dtype in rounding_cases.PARAMS:
        make, _ = rounding_cases.CASES[name]
        compiled = compile_fusion(make(dtype, 2), alias_outputs=False)
        for n, kernel in enumerate(compiled.kernels):
            source = folder / f"{name}_{dtype.name}_{n}.py".replace("-", "_")
            source.write_text(kernel.source)
            values = [compiled.scheduled.value(arg) for arg in kernel.args]
            args = [[v.shape, v.strides, str(v.dtype.torch).removeprefix("torch.")] for v in values]
            manifest.append({"source": str(source), "args": args})
            owners.append(((name, dtype.name), kernel.name))
    (folder / "manifest.json").write_text(json.dumps(manifest))
    env = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env["TRITON_CACHE_DIR"] = str(folder / "triton-cache")
    done = subprocess.run(
        [sys.executable, str(COMPILER), str(folder / "manifest.json"), str(folder / "ptx.json")],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, f"compiling for sm_90 failed:\n{done.stderr[-4000:]}"
    result: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for (case, kernel), launches in zip(owners, json.loads((folder / "ptx.json").read_text()), strict=True):
        result.setdefault(case, []).extend((kernel, ptx) for ptx in launches)
    return result


@pytest.mark.parametrize("name, dtype", rounding_cases.PARAMS, ids=rounding_cases.IDS)
def test_no_product_is_contracted_into_an_fma_on_the_gpu(name, dtype, ptx_of_case):
    launches = ptx_of_case[(name, dtype.name)]
    products = [kernel for kernel, ptx in launches if re.search(r"^\s*mul\.\S*f(16|32)\b", ptx, re.M)]
    assert products, "a kernel of the case must compute the product with a mul"
    for kernel, ptx in launches:
        fmas = re.findall(r"^\s*(fma\.\S+)", ptx, re.M)
        assert not fmas, f"{kernel}: {sorted(set(fmas))} skip the rounding of a product"
