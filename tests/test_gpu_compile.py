"""Every op's kernels compile for an sm_90 GPU (H100, H200), checked on the CPU.

Triton's interpreter runs kernels with numpy and compiles nothing, so a kernel Triton refuses for a GPU
(a shift by a constant wider than its operand, a constant of the wrong type) passes every interpreter test.
Here the special-value sweep's fusion of each op, for a float and an integer dtype, is compiled for sm_90
as a GPU's first launch compiles it (`hfuse.tools.triton_ir`), all in one child process.
"""

from __future__ import annotations

import re

import pytest
from segment_cases import Builder
from special_sweep import DTYPES, cases, swept_ops
from triton.backends import backends
from wide_cases import wide_softmax

from hfuse.dtypes import DataType
from hfuse.errors import HfuseError
from hfuse.ir import Op
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.tools.triton_ir import triton_irs

pytestmark = pytest.mark.skipif("nvidia" not in backends, reason="this Triton has no NVIDIA backend")

COMPILED_DTYPES = (DataType.Float, DataType.Int32, DataType.Int)


def test_every_ops_kernels_compile_for_sm_90():
    compileds, names = [], []
    for op in swept_ops():
        for dtype in (d for d in DTYPES if d in COMPILED_DTYPES):
            for layout, case in cases(op, dtype).items():
                try:
                    compileds.append(compile_fusion(case.fusion, alias_outputs=False))
                except HfuseError:
                    continue  # the op does not take this dtype
                names.append(f"{op.frontend_name}-{dtype.name}{'-' + layout if layout else ''}")
    assert len(compileds) > 150
    launches = triton_irs(compileds, timeout_s=1200)
    for name, found in zip(names, launches, strict=True):
        assert found and all(".target sm_90" in launch.irs["ptx"] for launch in found), name


def test_a_row_longer_than_int32_is_looped_over_on_the_gpu(monkeypatch):
    """A loop bound in [2**31, 2**32) is typed uint32 by Triton and compared signed: the loop ran no
    iteration (the compiler dropped it). Each loop of the compiled kernel must be there, bounded by a
    positive count."""
    monkeypatch.setenv("HFUSE_MAX_OUTPUT_BYTES", str(64 << 30))
    compiled = compile_fusion(wide_softmax(), alias_outputs=False)
    (launch,) = triton_irs([compiled], timeout_s=600)[0]
    bounds = re.findall(r"scf\.for %\w+ = %c(-?\d+)_i\d+ to %c(-?\d+)_i\d+", launch.irs["ttir"])
    assert len(bounds) == 3, launch.irs["ttir"]  # max, sum, then the normalized values
    assert all(int(low) == 0 and int(high) > 0 for low, high in bounds), bounds


WIDE_TILE_SCRIPT = """
from nvfuser import FusionDefinition, DataType
with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[2, 1073741831], contiguity=[True, True], dtype=DataType.Half,
                          stride_order=[0, 1])
    {body}
inputs = [torch.randn(2147483662, dtype=torch.float16).as_strided((2, 1073741831), (1, 2))]
"""
WIDE_TILE_BODIES = {
    # a tile's rows (an arange, int32) times a row stride past int32, beside a second output
    "cat": "T1 = fd.ops.cat([T0, T0], dim=1)\n    fd.add_output(fd.ops.sub(T1, T1))\n"
    "    fd.add_output(fd.ops.maximum(T0, fd.define_scalar(0.5, dtype=DataType.Double)))",
    "column-major-copy": "fd.add_output(fd.ops.cast(fd.ops.neg(T0), DataType.Float))",
    "row-sums": "fd.add_output(fd.ops.sum(fd.ops.cast(T0, DataType.Float), dims=[1]))",
}


def test_kernels_whose_tile_digits_meet_strides_past_int32_compile_for_sm_90(monkeypatch):
    """A wide kernel computes its program's position in int64, but the digits of a tile (aranges) are
    int32: each address term past int32 widens its digit first (Triton refuses an int32 tensor times a
    constant past int32)."""
    monkeypatch.setenv("HFUSE_MAX_INPUT_BYTES", str(8 << 30))
    monkeypatch.setenv("HFUSE_MAX_OUTPUT_BYTES", str(64 << 30))
    compileds = [
        compile_fusion(load(WIDE_TILE_SCRIPT.format(body=body), device="meta").fusion, alias_outputs=False)
        for body in WIDE_TILE_BODIES.values()
    ]
    for name, launches in zip(WIDE_TILE_BODIES, triton_irs(compileds, timeout_s=600), strict=True):
        assert launches and all(launch.irs.get("ttir") for launch in launches), name


def test_the_irs_are_specialized_as_a_gpu_launch_specializes_them():
    """A launch on the GPU tells Triton which pointers are 16-byte aligned, and only then are loads of
    consecutive elements vectorized: the IRs shown must be of that kernel, not of one without it."""
    b = Builder()
    x = b.define_tensor((64, 1024), DataType.BFloat16)
    b.add_output(b.op(Op.EXP, b.cast(x, DataType.Float)))
    (launch,) = triton_irs([compile_fusion(b.build(), alias_outputs=False)], timeout_s=600)[0]
    assert "tt.divisibility = 16" in launch.irs["ttir"]
    assert re.search(r"ld\.global(\.\w+)*\.v[248]\.", launch.irs["ptx"]), "the load is not vectorized"
