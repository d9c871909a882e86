"""Kernels keep every rounding of the fusion in the machine code a GPU runs.

Triton's interpreter computes op by op with numpy, so it cannot show what the GPU compiler does to a
kernel's math. Here each kernel is compiled, as its module launches it, for an sm_90 GPU (H100, H200) on the
CPU (`hfuse.tools.triton_ir`), and its PTX is read. hfuse has no fma op, so an fma in the PTX is a
contraction of a * b + c, which skips the rounding of a * b: for bf16 and fp16 products, a rounding the
fusion makes (LLVM narrows `bf16(bf16(a * b) + c)` of bf16 values to a bf16 mul and a bf16 add, then
contracts the two), off from torch by up to half an ulp of a * b; nvFuser's RoPE benchmark definitions
failed validation on an H200 so.
"""

from __future__ import annotations

import re

import pytest
import rounding_cases
from triton.backends import backends

from hfuse.pipeline import compile_fusion
from hfuse.tools.triton_ir import triton_irs

pytestmark = pytest.mark.skipif("nvidia" not in backends, reason="this Triton has no NVIDIA backend")


@pytest.fixture(scope="module")
def ptx_of_case() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(case, dtype name) -> (kernel name, PTX) of each launch of the case's kernels, from one child."""
    made = [rounding_cases.CASES[name][0](dtype, 2) for name, dtype in rounding_cases.PARAMS]
    launches = triton_irs([compile_fusion(fusion, alias_outputs=False) for fusion in made])
    return {
        (name, dtype.name): [(launch.kernel, launch.irs["ptx"]) for launch in found]
        for (name, dtype), found in zip(rounding_cases.PARAMS, launches, strict=True)
    }


@pytest.mark.parametrize("name, dtype", rounding_cases.PARAMS, ids=rounding_cases.IDS)
def test_no_product_is_contracted_into_an_fma_on_the_gpu(name, dtype, ptx_of_case):
    launches = ptx_of_case[(name, dtype.name)]
    # a scalar mul, or a packed one of two halves (mul.rn.bf16x2) where the loads are vectorized
    products = [kernel for kernel, ptx in launches if re.search(r"^\s*mul\.\S*f(16|32)(x2)?\b", ptx, re.M)]
    assert products, "a kernel of the case must compute the product with a mul"
    for kernel, ptx in launches:
        fmas = re.findall(r"^\s*(fma\.\S+)", ptx, re.M)
        assert not fmas, f"{kernel}: {sorted(set(fmas))} skip the rounding of a product"
