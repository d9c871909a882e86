# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 5f60a5976a (2023-08-16),
#   TestNvFuserFrontend.test_tensor_shape_expand_bcast.
# Computes: broadcast_in_dim to t0.shape(), then to the shape() of that result.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition


def fusion_func(fd: FusionDefinition):
    t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True])
    t1 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True])
    t2 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True])

    t1_b = fd.ops.broadcast_in_dim(t1, t0.shape(), [0, 1, 2])
    t2_b = fd.ops.broadcast_in_dim(t2, t1_b.shape(), [0, 1, 2])

    fd.add_output(t2_b)


inputs = [
    torch.randn(2, 3, 4, device="cuda"),
    torch.randn(2, 1, 4, device="cuda"),
    torch.randn(2, 1, 4, device="cuda"),
]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
