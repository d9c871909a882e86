# Bias + ReLU with an expanded bias (bf16): relu(x + bias), [2048,8192] bf16, the bias a stride-0 .expand of [8192]; OPT-1.3B MLP width 8192
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id118(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.add(T2, T3)
    T5 = fd.ops.relu(T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id118(fd)

inputs = [
    torch.testing.make_tensor((2048, 8192), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((8192,), dtype=torch.bfloat16, device='cuda:0').expand(2048, 8192),
]
fd.execute(inputs)
