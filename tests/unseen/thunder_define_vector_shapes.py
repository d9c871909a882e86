# 2024 Thunder printing: shapes as define_vector of Int scalars fed to reshape, broadcast_in_dim, full.
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id3(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    S2 = fd.define_scalar(2, dtype=DataType.Int)
    S3 = fd.define_scalar(12, dtype=DataType.Int)
    S4 = fd.define_scalar(4, dtype=DataType.Int)
    V5 = fd.define_vector([S2, S3, S4], dtype=DataType.Int)
    T6 = fd.ops.broadcast_in_dim(T1, shape=V5, broadcast_dims=[2])
    T7 = fd.ops.cast(T0, dtype=DataType.Float)
    T8 = fd.ops.cast(T6, dtype=DataType.Float)
    T9 = fd.ops.mul(T7, T8)
    S10 = fd.define_scalar(2, dtype=DataType.Int)
    S11 = fd.define_scalar(3, dtype=DataType.Int)
    S12 = fd.define_scalar(4, dtype=DataType.Int)
    S13 = fd.define_scalar(4, dtype=DataType.Int)
    V14 = fd.define_vector([S10, S11, S12, S13], dtype=DataType.Int)
    T15 = fd.ops.reshape(T9, new_shape=V14)
    S16 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T17 = fd.ops.full(shape=V14, fill_value=S16, dtype=DataType.Float)
    T18 = fd.ops.add(T15, T17)
    T19 = fd.ops.cast(T18, dtype=DataType.BFloat16)
    fd.add_output(T19)


with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [
    torch.testing.make_tensor((2, 12, 4), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
