# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_cummin.
# Computes: the running min (fd.ops.cummin, nvfuser_direct) of an [8, 16] float input along dim 1.
# Adapted: the test's test_fn(dim) helper runs nvfuser_direct_test.exec_nvfuser(...) for dim 0 and 1; the
#   call for dim 1 is written as the with-block and fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
]
dim = 1


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.cummin(t0, dim)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
