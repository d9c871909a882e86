# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 50bac23fd1 (2024-11-28),
#   TestNvFuserFrontend.test_output_stride_order_with_reduction.
# Computes: a sum over dim 2 whose output is written in stride order (2, 0, 1) via
#   add_output(stride_order=...).
# Adapted: the test loops over every permutation of range(3) and also tries fd.ops.stride_order; here
#   stride_order = (2, 0, 1) and the add_output form, as written in the test.
import torch
from nvfuser import FusionDefinition

inputs = [torch.randn(2, 3, 4, 5, device="cuda", dtype=torch.float)]
stride_order = (2, 0, 1)


def fusion_add_output(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.sum(T0, dims=[2])
    fd.add_output(T1, stride_order=stride_order)


with FusionDefinition() as fd:
    fusion_add_output(fd)

out = fd.execute(inputs)[0]
