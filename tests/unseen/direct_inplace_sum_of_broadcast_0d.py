# Source: NVIDIA/Fuser, tests/python/direct/test_repro.py at 81c4b22fd7 (2026-04-03),
#   test_issue2664_repro2.
# Computes: a 0-d input broadcast to [4194304], summed into the 0-d input in place (add_output(T8, T2)), times
#   and plus a [4194304] input.
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
#   The test's ref_out list is kept as written.
import torch
from nvfuser_direct import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    T1 = fd.define_tensor(
        shape=[-1],
        contiguity=[True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[0],
    )
    T2 = fd.define_tensor(
        shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False
    )
    S5 = fd.define_scalar(4194304, dtype=DataType.Int)
    T7 = fd.ops.broadcast_in_dim(T2, shape=[S5], broadcast_dims=[])
    T8 = fd.ops.sum(T7, dims=[0], keepdim=False)
    T9 = fd.ops.mul(T1, T7)
    T10 = fd.ops.add(T1, T7)
    fd.add_output(T8, T2)
    fd.add_output(T9)
    fd.add_output(T10)

inputs = [
    torch.randn((4194304,), dtype=torch.float32, device="cuda:0").as_strided(
        (4194304,), (1,)
    ),
    torch.randn((1,), dtype=torch.float32, device="cuda:0").as_strided((), ()),
]

ref_out = [
    inputs[-1] * inputs[0].size(0),
    inputs[-1] * inputs[0],
    inputs[0] + inputs[1],
]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
