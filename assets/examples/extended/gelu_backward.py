# GELU backward (erf, bf16): grad of exact GELU for [32,96] bf16 grad and input, in fp32; sized down from GPT-2 XL MLP width 6400
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id115(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    S4 = fd.define_scalar(0.707106781186547, dtype=DataType.Double)
    T5 = fd.ops.mul(T3, S4)
    T6 = fd.ops.erf(T5)
    S7 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T8 = fd.ops.add(S7, T6)
    S9 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T10 = fd.ops.mul(S9, T8)
    T11 = fd.ops.mul(T3, T3)
    S12 = fd.define_scalar(-0.500000, dtype=DataType.Double)
    T13 = fd.ops.mul(S12, T11)
    T14 = fd.ops.exp(T13)
    S15 = fd.define_scalar(0.398942280401433, dtype=DataType.Double)
    T16 = fd.ops.mul(S15, T14)
    T17 = fd.ops.mul(T3, T16)
    T18 = fd.ops.add(T10, T17)
    T19 = fd.ops.mul(T2, T18)
    T20 = fd.ops.cast(T19, dtype=DataType.BFloat16)
    fd.add_output(T20)

with FusionDefinition() as fd:
    nvfuser_fusion_id115(fd)

inputs = [
    torch.testing.make_tensor((32, 96), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((32, 96), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
