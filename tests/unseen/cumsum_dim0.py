# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at b3ef72213f (2025-08-25),
#   TestNvFuserFrontend.test_cumsum.
# Computes: cumsum along dim 0 of an [8, 16] input.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(8, 16, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.cumsum(t0, 0)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
