# Add of a transposed input (bf16): [3072,768] bf16 plus a [768,3072] tensor read through .t(), in fp32; GPT-2 small MLP weight
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id117(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0, 1])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.add(T2, T3)
    T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id117(fd)

inputs = [
    torch.testing.make_tensor((3072, 768), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((768, 3072), dtype=torch.bfloat16, device='cuda:0').t(),
]
fd.execute(inputs)
