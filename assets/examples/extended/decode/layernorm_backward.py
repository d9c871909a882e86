# LayerNorm backward (bf16): grad-input (two row sums, saved mean and rstd), grad-weight and grad-bias (column sums) of [2048,4096] bf16; GPT-J 6B hidden 4096
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id113(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T10 = fd.ops.broadcast_in_dim(T2, shape=[2048, 4096], broadcast_dims=[0])
    T11 = fd.ops.sub(T6, T10)
    T15 = fd.ops.broadcast_in_dim(T3, shape=[2048, 4096], broadcast_dims=[0])
    T16 = fd.ops.mul(T11, T15)
    T20 = fd.ops.broadcast_in_dim(T4, shape=[2048, 4096], broadcast_dims=[1])
    T21 = fd.ops.cast(T20, dtype=DataType.Float)
    T22 = fd.ops.mul(T5, T21)
    T23 = fd.ops.sum(T22, dims=[1], keepdim=False, dtype=DataType.Null)
    T27 = fd.ops.broadcast_in_dim(T23, shape=[2048, 4096], broadcast_dims=[0])
    T28 = fd.ops.mul(T22, T16)
    T29 = fd.ops.sum(T28, dims=[1], keepdim=False, dtype=DataType.Null)
    T33 = fd.ops.broadcast_in_dim(T29, shape=[2048, 4096], broadcast_dims=[0])
    S34 = fd.define_scalar(4096.0, dtype=DataType.Double)
    T35 = fd.ops.mul(T22, S34)
    T36 = fd.ops.sub(T35, T27)
    T37 = fd.ops.mul(T16, T33)
    T38 = fd.ops.sub(T36, T37)
    T39 = fd.ops.div(T15, S34)
    T40 = fd.ops.mul(T39, T38)
    T41 = fd.ops.cast(T40, dtype=DataType.BFloat16)
    T42 = fd.ops.mul(T5, T16)
    T43 = fd.ops.sum(T42, dims=[0], keepdim=False, dtype=DataType.Null)
    T44 = fd.ops.cast(T43, dtype=DataType.BFloat16)
    T45 = fd.ops.sum(T5, dims=[0], keepdim=False, dtype=DataType.Null)
    T46 = fd.ops.cast(T45, dtype=DataType.BFloat16)
    fd.add_output(T41)
    fd.add_output(T44)
    fd.add_output(T46)

with FusionDefinition() as fd:
    nvfuser_fusion_id113(fd)

inputs = [
    torch.testing.make_tensor((2048, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((2048, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((2048,), dtype=torch.float32, device='cuda:0', low=-1.0, high=1.0),
    torch.testing.make_tensor((2048,), dtype=torch.float32, device='cuda:0', low=0.5, high=2.0),
    torch.testing.make_tensor((4096,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
