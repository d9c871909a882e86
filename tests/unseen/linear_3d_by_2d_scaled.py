# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09),
#   TestMatmul.test_matmul_issue_2354.
# Computes: linear of [6, 2, 4] by [8, 4], and the result times 1.41421.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn((8, 4), dtype=torch.float32, device="cuda:0"),
    torch.randn(
        (
            6,
            2,
            4,
        ),
        dtype=torch.float32,
        device="cuda:0",
    ),
]


def fusion_func(fd: FusionDefinition):
    T0 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T1 = fd.define_tensor(
        shape=[-1, -1, -1],
        contiguity=[True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T2 = fd.ops.linear(T1, T0)
    S3 = fd.define_scalar(1.41421, dtype=DataType.Double)
    T4 = fd.ops.mul(T2, S3)
    fd.add_output(T2)
    fd.add_output(T4)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
