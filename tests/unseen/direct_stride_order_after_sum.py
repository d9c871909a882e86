# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_output_stride_order_with_reduction.
# Computes: sum over dim 2 of [2, 3, 4, 5], its output laid out by fd.ops.stride_order(T1, (1, 2, 0)).
# Adapted: the test loops over itertools.permutations(range(3), 3), one definition and run per order; the
#   loop body for the order (1, 2, 0) is written out below; its stride check is left out.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(2, 3, 4, 5, device="cuda", dtype=torch.float)]
stride_order = (1, 2, 0)


def fusion_stride_order_op(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.sum(T0, dims=[2])
    T2 = fd.ops.stride_order(T1, stride_order)
    fd.add_output(T2)


with FusionDefinition() as fd:
    fusion_stride_order_op(fd)

out = fd.execute(inputs)[0]
