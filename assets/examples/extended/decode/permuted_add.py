# Add of a permuted input (bf16): [1,32,2048,128] bf16 read as .permute(0, 2, 1, 3) of [1,2048,32,128], plus a contiguous one; Llama-2 7B 32 heads of 128
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id119(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 1, 2, 0])
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.add(T2, T3)
    T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id119(fd)

inputs = [
    torch.testing.make_tensor((1, 2048, 32, 128), dtype=torch.bfloat16, device='cuda:0').permute(0, 2, 1, 3),
    torch.testing.make_tensor((1, 32, 2048, 128), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
