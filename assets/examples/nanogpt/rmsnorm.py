# RMSNorm (bf16): rows of [2048,1024] bf16 scaled by the reciprocal root mean square, in fp32, as Thunder prints it
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id5(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.mul(T2, T2)
    T4 = fd.ops.sum(T3, dims=[1], keepdim=False, dtype=DataType.Null)
    T8 = fd.ops.broadcast_in_dim(T4, shape=[2048, 1], broadcast_dims=[0])
    S9 = fd.define_scalar(1024.0, dtype=DataType.Double)
    T10 = fd.ops.div(T8, S9)
    S11 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T12 = fd.ops.add(T10, S11)
    T13 = fd.ops.rsqrt(T12)
    T17 = fd.ops.broadcast_in_dim(T13, shape=[2048, 1024], broadcast_dims=[0, 1])
    T18 = fd.ops.mul(T2, T17)
    T22 = fd.ops.broadcast_in_dim(T1, shape=[2048, 1024], broadcast_dims=[1])
    T23 = fd.ops.cast(T22, dtype=DataType.Float)
    T24 = fd.ops.mul(T18, T23)
    T25 = fd.ops.cast(T24, dtype=DataType.BFloat16)
    fd.add_output(T25)

with FusionDefinition() as fd:
    nvfuser_fusion_id5(fd)

inputs = [
    torch.testing.make_tensor((2048, 1024), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((1024,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
