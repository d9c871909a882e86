# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09), TestMatmul.test_repro_issue2532.
# Computes: matmul of [2, 32, 1] by [2, 1, 16] (K = 1, permuted strides) and sums of the operands and the
#   product.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[-1, -1, 1],
        contiguity=[True, None, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 0, 1],
    )
    T1 = fd.define_tensor(
        shape=[-1, 1, -1],
        contiguity=[True, None, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T2 = fd.ops.sum(T1, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.matmul(T0, T1)
    T4 = fd.ops.sum(T3, dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T2)
    fd.add_output(T4)


inputs = [
    torch.randn((2 * 32,), dtype=torch.float32, device="cuda:0").as_strided(
        (2, 32, 1), (32, 1, 32)
    ),
    torch.randn((2 * 16,), dtype=torch.float32, device="cuda:0").as_strided(
        (2, 1, 16), (16, 16, 1)
    ),
]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
