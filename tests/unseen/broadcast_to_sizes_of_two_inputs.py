# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 5f60a5976a (2023-08-16),
#   TestNvFuserFrontend.test_tensor_size_both_args_bcast.
# Computes: both inputs broadcast to [t1.size(0), t0.size(1)], then added.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(1, 3, device="cuda"),
    torch.randn(2, 1, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    t0_b = fd.ops.broadcast_in_dim(t0, [t1.size(0), t0.size(1)], [0, 1])
    t1_b = fd.ops.broadcast_in_dim(t1, [t1.size(0), t0.size(1)], [0, 1])
    t2 = fd.ops.add(t0_b, t1_b)

    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
