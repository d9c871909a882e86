# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 44e99fed36 (2023-04-15),
#   TestNvFuserFrontend.test_static_tensor_sizes.
# Computes: mul of [4, 5, 1] and [1, 5, 6] inputs read with from_pytorch(static_sizes=True).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(4, 5, 1, device="cuda"),
    torch.randn(1, 5, 6, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0], static_sizes=True)
    t1 = fd.from_pytorch(inputs[1], static_sizes=True)
    t2 = fd.ops.mul(t0, t1)
    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
