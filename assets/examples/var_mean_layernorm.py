# LayerNorm with var_mean: [4,16,128] fp32 normalized over the last dim; also returns mean and rstd (nvfuser_direct)
import torch
from nvfuser_direct import FusionDefinition, DataType

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3, T4 = fd.ops.var_mean(T0, dims=[2], correction=0, keepdim=True)
    S5 = fd.define_scalar(1e-05, dtype=DataType.Double)
    T6 = fd.ops.add(T3, S5)
    T7 = fd.ops.rsqrt(T6)
    T8 = fd.ops.expand(T4, shape=[4, 16, 128])
    T9 = fd.ops.sub(T0, T8)
    T10 = fd.ops.expand(T7, shape=[4, 16, 128])
    T11 = fd.ops.mul(T9, T10)
    T12 = fd.ops.broadcast_in_dim(T1, shape=[4, 16, 128], broadcast_dims=[2])
    T13 = fd.ops.mul(T11, T12)
    T14 = fd.ops.broadcast_in_dim(T2, shape=[4, 16, 128], broadcast_dims=[2])
    T15 = fd.ops.add(T13, T14)
    fd.add_output(T15)
    fd.add_output(T4)
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((4, 16, 128), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((128,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((128,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
