# Source: NVIDIA/Fuser, tests/python/test_pointwise.py at 59987e05d8 (2025-09-10), test_multi_inplace.
# Computes: two 0-dim inputs updated in place: one with the sum over 4194304 elements, one with itself
#   plus 1.
# Adapted: the test's statements as written; its reference list ref_out and checks are left out.
import torch
from nvfuser import FusionDefinition, DataType


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
    T3 = fd.define_tensor(
        shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False
    )
    T4 = fd.ops.broadcast_in_dim(T2, shape=T1.shape(), broadcast_dims=[])
    T5 = fd.ops.add(T1, T4)
    T6 = fd.ops.sum(T5, dims=[0], keepdim=False)
    S0 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T7 = fd.ops.add(T3, S0)
    fd.add_output(T6, T3)
    fd.add_output(T7, T2)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn((4194304,), dtype=torch.float32, device="cuda:0").as_strided(
        (4194304,), (1,)
    ),
    torch.randn((1,), dtype=torch.float32, device="cuda:0").as_strided((), ()),
    torch.randn((1,), dtype=torch.float32, device="cuda:0").as_strided((), ()),
]
fd.execute(inputs, profile=False)
