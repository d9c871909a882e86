# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 8e0372b15d (2024-10-09),
#   TestNvFuserFrontend.test_expand.
# Computes: fd.ops.expand of a [1, 1, 4] input to the other input's torch size, then an add.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(1, 1, 4, device="cuda"),
    torch.randn(2, 3, 4, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    t0_b = fd.ops.expand(t0, inputs[1].size())
    t2 = fd.ops.add(t0_b, t1)

    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
