# Middle-dim reduction (bf16 -> fp32): [8,2048,4096] bf16 summed over the sequence (dim 1) into fp32; Llama-2 7B hidden 4096
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id103(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id103(fd)

inputs = [
    torch.testing.make_tensor((8, 2048, 4096), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
