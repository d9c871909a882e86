# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03), test_cumprod.
# Computes: cumprod along dim 1 of an [8, 16] input (nvfuser_direct).
# Adapted: the test wraps this in a helper test_fn(dim) that it runs for dims 0 and 1; here dim = 1 at top
#   level, and the helper's nvfuser_direct_test.exec_nvfuser(...) is written as the with-block and
#   fd.execute below.
import torch
from nvfuser_direct import FusionDefinition

inputs = [
    torch.randn(8, 16, device="cuda"),
]
dim = 1


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.cumprod(t0, dim)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
