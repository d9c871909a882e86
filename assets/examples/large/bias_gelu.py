# Bias + GELU (tanh, bf16): [16384,4096] bf16 plus a bias row, through the tanh approximation of GELU in fp32
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id9(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T5 = fd.ops.broadcast_in_dim(T1, shape=[16384, 4096], broadcast_dims=[1])
    T6 = fd.ops.cast(T0, dtype=DataType.Float)
    T7 = fd.ops.cast(T5, dtype=DataType.Float)
    T8 = fd.ops.add(T6, T7)
    T9 = fd.ops.mul(T8, T8)
    T10 = fd.ops.mul(T9, T8)
    S11 = fd.define_scalar(0.0447150, dtype=DataType.Double)
    T12 = fd.ops.mul(S11, T10)
    T13 = fd.ops.add(T8, T12)
    S14 = fd.define_scalar(0.797885, dtype=DataType.Double)
    T15 = fd.ops.mul(S14, T13)
    T16 = fd.ops.tanh(T15)
    S17 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T18 = fd.ops.add(S17, T16)
    S19 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T20 = fd.ops.mul(S19, T8)
    T21 = fd.ops.mul(T20, T18)
    T22 = fd.ops.cast(T21, dtype=DataType.BFloat16)
    fd.add_output(T22)

with FusionDefinition() as fd:
    nvfuser_fusion_id9(fd)

inputs = [
    torch.testing.make_tensor((16384, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4096,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
