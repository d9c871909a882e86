# Source: NVIDIA/Fuser, tests/python/test_pointwise.py at 59987e05d8 (2025-09-10), test_implicit_bcast_inplace.
# Computes: [4194304, 1] + [4194304, 128], and the negation of the [4194304, 1] input written back into
#   it.
# Adapted: the test's statements as written; its reference list ref_out and checks are left out.
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[-1, 1],
        contiguity=[True, None],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T1 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T3 = fd.ops.add(T1, T0)
    T4 = fd.ops.neg(T0)
    fd.add_output(T3)
    fd.add_output(T4, T0)


inputs = [
    torch.randn((4194304, 1), dtype=torch.float32, device="cuda:0"),
    torch.randn((4194304, 128), dtype=torch.float32, device="cuda:0"),
]

with FusionDefinition() as fd:
    fusion_func(fd)

out = fd.execute(inputs)
