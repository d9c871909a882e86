# Source: NVIDIA/Fuser, tests/python/direct/test_repro.py at 81c4b22fd7 (2026-04-03),
#   test_issue3369.
# Computes: linear of [5, 5] by [5, 5] with a [5] bias (nvfuser_direct, make_tensor inputs).
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


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

inputs = [
    torch.testing.make_tensor((5, 5), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((5, 5), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.float32, device="cuda:0"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id28(fd)

fd.execute(inputs)
