# Residual add + LayerNorm, both written (bf16): h = x + residual ([2048,1600] bf16) and LayerNorm(h), both written; GPT-2 XL hidden 1600
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id111(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.cast(T1, dtype=DataType.Float)
    T6 = fd.ops.add(T4, T5)
    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
    T8 = fd.ops.cast(T7, dtype=DataType.Float)
    T9, T10 = fd.ops.var_mean(T8, dims=[1], correction=0, keepdim=False)
    T14 = fd.ops.broadcast_in_dim(T9, shape=[2048, 1], broadcast_dims=[0])
    T18 = fd.ops.broadcast_in_dim(T10, shape=[2048, 1], broadcast_dims=[0])
    S19 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T20 = fd.ops.add(T14, S19)
    T21 = fd.ops.rsqrt(T20)
    T25 = fd.ops.broadcast_in_dim(T18, shape=[2048, 1600], broadcast_dims=[0, 1])
    T26 = fd.ops.sub(T8, T25)
    T30 = fd.ops.broadcast_in_dim(T21, shape=[2048, 1600], broadcast_dims=[0, 1])
    T31 = fd.ops.mul(T26, T30)
    T35 = fd.ops.broadcast_in_dim(T2, shape=[2048, 1600], broadcast_dims=[1])
    T36 = fd.ops.cast(T35, dtype=DataType.Float)
    T37 = fd.ops.mul(T31, T36)
    T41 = fd.ops.broadcast_in_dim(T3, shape=[2048, 1600], broadcast_dims=[1])
    T42 = fd.ops.cast(T41, dtype=DataType.Float)
    T43 = fd.ops.add(T37, T42)
    T44 = fd.ops.cast(T43, dtype=DataType.BFloat16)
    fd.add_output(T7)
    fd.add_output(T44)

with FusionDefinition() as fd:
    nvfuser_fusion_id111(fd)

inputs = [
    torch.testing.make_tensor((2048, 1600), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((2048, 1600), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((1600,), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((1600,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
