# RMSNorm backward (bf16): grad-input (rstd recomputed, two row sums) and grad-weight (a column sum) of [2048,4096] bf16; Llama-2 7B hidden 4096
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id114(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.mul(T4, T4)
    T6 = fd.ops.sum(T5, dims=[1], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.broadcast_in_dim(T6, shape=[2048, 1], broadcast_dims=[0])
    S11 = fd.define_scalar(4096.0, dtype=DataType.Double)
    T12 = fd.ops.div(T10, S11)
    S13 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T14 = fd.ops.add(T12, S13)
    T15 = fd.ops.rsqrt(T14)
    T19 = fd.ops.broadcast_in_dim(T15, shape=[2048, 4096], broadcast_dims=[0, 1])
    T20 = fd.ops.mul(T4, T19)
    T24 = fd.ops.broadcast_in_dim(T2, shape=[2048, 4096], broadcast_dims=[1])
    T25 = fd.ops.cast(T24, dtype=DataType.Float)
    T26 = fd.ops.mul(T3, T25)
    T27 = fd.ops.mul(T26, T20)
    T28 = fd.ops.sum(T27, dims=[1], keepdim=False, dtype=DataType.Null)
    T32 = fd.ops.broadcast_in_dim(T28, shape=[2048, 1], broadcast_dims=[0])
    T33 = fd.ops.div(T32, S11)
    T37 = fd.ops.broadcast_in_dim(T33, shape=[2048, 4096], broadcast_dims=[0, 1])
    T38 = fd.ops.mul(T20, T37)
    T39 = fd.ops.sub(T26, T38)
    T40 = fd.ops.mul(T19, T39)
    T41 = fd.ops.cast(T40, dtype=DataType.BFloat16)
    T42 = fd.ops.mul(T3, T20)
    T43 = fd.ops.sum(T42, dims=[0], keepdim=False, dtype=DataType.Null)
    T44 = fd.ops.cast(T43, dtype=DataType.BFloat16)
    fd.add_output(T41)
    fd.add_output(T44)

with FusionDefinition() as fd:
    nvfuser_fusion_id114(fd)

inputs = [
    torch.testing.make_tensor((2048, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((2048, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4096,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
