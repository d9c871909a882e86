# Source: NVIDIA/Fuser, tests/python/test_optimization_passes.py at 2a356bcc88 (2025-09-09), test_square_linear.
# Computes: linear of [5, 5] by [5, 5] with a [5] bias (all sizes equal).
# Adapted: none: the test's statements as written, its eager checks left out.
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id28(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[5, 5],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T1 = fd.define_tensor(
        shape=[5, 5],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T2 = fd.define_tensor(
        shape=[5],
        contiguity=[True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[0],
    )
    T3 = fd.ops.linear(T0, T1, T2)
    fd.add_output(T3)


with FusionDefinition() as fd:
    nvfuser_fusion_id28(fd)

inputs = [
    torch.testing.make_tensor((5, 5), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((5, 5), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.float32, device="cuda:0"),
]
fd.execute(inputs)
