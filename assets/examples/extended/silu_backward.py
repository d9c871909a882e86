# SiLU backward (bf16): grad of SiLU for [32,112] bf16 grad and input, in fp32; sized down from Mistral 7B MLP width 14336
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id116(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.sigmoid(T3)
    S5 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T6 = fd.ops.sub(S5, T4)
    T7 = fd.ops.mul(T3, T6)
    T8 = fd.ops.add(S5, T7)
    T9 = fd.ops.mul(T4, T8)
    T10 = fd.ops.mul(T2, T9)
    T11 = fd.ops.cast(T10, dtype=DataType.BFloat16)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id116(fd)

inputs = [
    torch.testing.make_tensor((32, 112), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32, 112), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
