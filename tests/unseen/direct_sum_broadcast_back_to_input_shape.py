# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_tensor_shape_with_output_bcast.
# Computes: sum over the last dim of [2, 3, 4], broadcast back to t0.shape().
# Adapted: the test runs nvfuser_direct_test.exec_nvfuser(...) on inputs_1, then again on inputs_2; the
#   first run is written as the with-block and fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition):
    t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True])

    t1 = fd.ops.sum(t0, dims=[2])
    t1_b = fd.ops.broadcast_in_dim(t1, t0.shape(), [0, 1])

    fd.add_output(t1_b)

inputs_1 = [
    torch.randn(2, 3, 4, device="cuda"),
]

inputs_2 = [
    torch.randn(4, 5, 32, device="cuda"),
]

inputs = inputs_1

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
