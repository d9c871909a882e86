# SwiGLU (bf16): silu(a) * b for two [8192,11008] bf16 tensors, as nvfuser_direct prints it
import torch
from nvfuser_direct import FusionDefinition, DataType

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.silu(T2)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.mul(T3, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((8192, 11008), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((8192, 11008), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
