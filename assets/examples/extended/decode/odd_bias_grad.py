# Bias gradient at an odd width (bf16 -> fp32): sum(x.float(), dim=0) of a [512,30522] bf16 gradient, an MLM decoder's fp32 bias grad; rows start off 16-byte boundaries; BERT-base vocabulary 30522, one 512-token sequence
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id124(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id124(fd)

inputs = [
    torch.testing.make_tensor((512, 30522), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
