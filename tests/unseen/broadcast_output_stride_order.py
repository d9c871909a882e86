# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 90c55c02cf (2025-08-18),
#   TestNvFuserFrontend.test_broadcast_and_stride_order.
# Computes: broadcast a [2, 3, 4] input to [2, 1, 3, 4] and return it with stride_order [0, 1, 2, 3].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(2, 3, 4, dtype=torch.float32, device="cuda:0"),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.broadcast(T0, is_broadcast_dim=[False, True, False, False])
    fd.add_output(T1, stride_order=[0, 1, 2, 3])


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
