# Pointwise at prime sizes (bf16): x * sigmoid(y) for [4093,5003] bf16 x and y, in fp32; prime extents, no multiple of 8
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id120(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.sigmoid(T3)
    T5 = fd.ops.mul(T2, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id120(fd)

inputs = [
    torch.testing.make_tensor((4093, 5003), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4093, 5003), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
