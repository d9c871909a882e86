# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 75cc157a4d (2023-07-18),
#   TestNvFuserFrontend.test_expand_to_zero.
# Computes: broadcast_in_dim of [1, 0] and [1, 1] inputs to [0, 0].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    # This is an actually empty tensor
    torch.zeros((1, 0), dtype=torch.float32, device="cuda:0"),
    # This one is not actually empty, but should appear to be empty due to expand
    torch.zeros((1, 1), dtype=torch.float32, device="cuda:0"),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.broadcast_in_dim(T0, output_shape=[0, 0], broadcast_dims=[0, 1])
    T3 = fd.ops.broadcast_in_dim(T1, output_shape=[0, 0], broadcast_dims=[0, 1])
    fd.add_output(T2)
    fd.add_output(T3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
