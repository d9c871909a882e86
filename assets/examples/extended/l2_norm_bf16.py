# L2 norm (bf16): sqrt of the fp32 sum of squares of a [40,64] bf16 gradient (grad-norm clipping); sized down from Llama-2 7B MLP weight
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id106(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.mul(T1, T1)
    T3 = fd.ops.sum(T2, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.sqrt(T3)
    fd.add_output(T4)

with FusionDefinition() as fd:
    nvfuser_fusion_id106(fd)

inputs = [
    torch.testing.make_tensor((40, 64), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
