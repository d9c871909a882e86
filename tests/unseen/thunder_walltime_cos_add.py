# Source: Lightning-AI/lightning-thunder, thunder/tests/test_dynamo.py at c6caa17bc9 (2026-01-06),
#   test_WallTime_KernelTime (added in 04fe3750d, 2025-02-13).
# Computes: cos(T0) + T1 + 1.0 on [2, 2] float inputs (static shapes, black-formatted Thunder output).
# Adapted: the test's statements up to its first run; the WallTime/KernelTime timing calls that follow are
#   replaced by the plain fd.execute(inputs) they time.
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id2(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[2, 2], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0]
    )
    T1 = fd.define_tensor(
        shape=[2, 2], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0]
    )
    T2 = fd.ops.cos(T0)
    T3 = fd.ops.add(T1, T2)
    S4 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T5 = fd.ops.add(T3, S4)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.testing.make_tensor((2, 2), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((2, 2), dtype=torch.float32, device="cuda:0"),
]
fd.execute(inputs)
