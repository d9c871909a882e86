# Source: NVIDIA/Fuser, tests/python/test_pointwise.py at 59987e05d8 (2025-09-10), test_inplace_issue2664.
# Computes: a 0-dim input plus 1 written back into it (add_output(T4, T2)) and broadcast over 4194304
#   elements.
# Adapted: the test's statements as written; its reference list ref_out and checks are left out.
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id0(fd: FusionDefinition) -> None:
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
    S3 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T4 = fd.ops.add(T2, S3)
    S5 = fd.define_scalar(4194304, dtype=DataType.Int)
    V6 = fd.define_vector([S5], dtype=DataType.Int)
    T7 = fd.ops.broadcast_in_dim(T4, shape=V6, broadcast_dims=[])
    T8 = fd.ops.mul(T1, T7)
    fd.add_output(T4, T2)
    fd.add_output(T8)


with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((4194304,), dtype=torch.float32, device="cuda:0").as_strided(
        (4194304,), (1,)
    ),
    torch.randn((1,), dtype=torch.float32, device="cuda:0").as_strided((), ()),
]
out = fd.execute(inputs, profile=False)
