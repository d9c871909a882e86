# Residual add + RMSNorm, both written (bf16): h = x + residual ([16384,4096] bf16) and RMSNorm(h), both written; Llama-2 7B hidden 4096
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id112(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    T7 = fd.ops.cast(T6, dtype=DataType.Float)
    T8 = fd.ops.mul(T7, T7)
    T9 = fd.ops.sum(T8, dims=[1], keepdim=False, dtype=DataType.Null)
    T13 = fd.ops.broadcast_in_dim(T9, shape=[16384, 1], broadcast_dims=[0])
    S14 = fd.define_scalar(4096.0, dtype=DataType.Double)
    T15 = fd.ops.div(T13, S14)
    S16 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T17 = fd.ops.add(T15, S16)
    T18 = fd.ops.rsqrt(T17)
    T22 = fd.ops.broadcast_in_dim(T18, shape=[16384, 4096], broadcast_dims=[0, 1])
    T23 = fd.ops.mul(T7, T22)
    T27 = fd.ops.broadcast_in_dim(T2, shape=[16384, 4096], broadcast_dims=[1])
    T28 = fd.ops.cast(T27, dtype=DataType.Float)
    T29 = fd.ops.mul(T23, T28)
    T30 = fd.ops.cast(T29, dtype=DataType.BFloat16)
    fd.add_output(T6)
    fd.add_output(T30)

with FusionDefinition() as fd:
    nvfuser_fusion_id112(fd)

inputs = [
    torch.testing.make_tensor((16384, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((16384, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4096,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
