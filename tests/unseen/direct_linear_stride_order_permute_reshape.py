# Source: NVIDIA/Fuser, tests/python/direct/test_repro.py at 81c4b22fd7 (2026-04-03),
#   test_issue2317.
# Computes: permute + stride_order + reshape to T1.shape() of [16, 25, 128, 64] bf16, two linears by
#   [1600, 1600] with residual adds.
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


inputs = [
    torch.randn((16, 25, 128, 64), dtype=torch.bfloat16, device="cuda:0"),
    torch.randn((16, 128, 1600), dtype=torch.bfloat16, device="cuda:0"),
    torch.randn((1600, 1600), dtype=torch.bfloat16, device="cuda:0"),
]

def fusion_func(fd: FusionDefinition):
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])

    T10 = fd.ops.permute(T0, dims=[0, 2, 1, 3])
    T11 = fd.ops.stride_order(T10, stride_order=[3, 2, 1, 0])
    T16 = fd.ops.reshape(T11, new_shape=T1.shape())
    T17 = fd.ops.linear(T16, T2)
    T33 = fd.ops.add(T17, T1)

    T33 = fd.ops.cast(T33, dtype=DataType.BFloat16)
    T34 = fd.ops.linear(T33, T2)
    T35 = fd.ops.add(T34, T33)
    fd.add_output(T35)

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
