# QK-norm (bf16): two RMSNorms side by side, q [32,8,32] and k [32,2,32] normalized over the head dim
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id15(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.mul(T4, T4)
    T6 = fd.ops.sum(T5, dims=[2], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.broadcast_in_dim(T6, shape=[32, 8, 1], broadcast_dims=[0, 1])
    S11 = fd.define_scalar(32.0, dtype=DataType.Double)
    T12 = fd.ops.div(T10, S11)
    S13 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T14 = fd.ops.add(T12, S13)
    T15 = fd.ops.rsqrt(T14)
    T19 = fd.ops.broadcast_in_dim(T15, shape=[32, 8, 32], broadcast_dims=[0, 1, 2])
    T20 = fd.ops.mul(T4, T19)
    T24 = fd.ops.broadcast_in_dim(T2, shape=[32, 8, 32], broadcast_dims=[2])
    T25 = fd.ops.cast(T24, dtype=DataType.Float)
    T26 = fd.ops.mul(T20, T25)
    T27 = fd.ops.cast(T26, dtype=DataType.BFloat16)
    T28 = fd.ops.cast(T1, dtype=DataType.Float)
    T29 = fd.ops.mul(T28, T28)
    T30 = fd.ops.sum(T29, dims=[2], keepdim=False, dtype=DataType.Null)
    T34 = fd.ops.broadcast_in_dim(T30, shape=[32, 2, 1], broadcast_dims=[0, 1])
    S35 = fd.define_scalar(32.0, dtype=DataType.Double)
    T36 = fd.ops.div(T34, S35)
    S37 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T38 = fd.ops.add(T36, S37)
    T39 = fd.ops.rsqrt(T38)
    T43 = fd.ops.broadcast_in_dim(T39, shape=[32, 2, 32], broadcast_dims=[0, 1, 2])
    T44 = fd.ops.mul(T28, T43)
    T48 = fd.ops.broadcast_in_dim(T3, shape=[32, 2, 32], broadcast_dims=[2])
    T49 = fd.ops.cast(T48, dtype=DataType.Float)
    T50 = fd.ops.mul(T44, T49)
    T51 = fd.ops.cast(T50, dtype=DataType.BFloat16)
    fd.add_output(T27)
    fd.add_output(T51)

with FusionDefinition() as fd:
    nvfuser_fusion_id15(fd)

inputs = [
    torch.testing.make_tensor((32, 8, 32), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32, 2, 32), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32,), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
