# Column reduction + normalize (bf16): x - mean(x, dim=0) of a [96,40] bf16 x, the mean in fp32; sized down from Llama-2 7B hidden 4096
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id104(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
    S3 = fd.define_scalar(96.0, dtype=DataType.Double)
    T4 = fd.ops.div(T2, S3)
    T8 = fd.ops.broadcast_in_dim(T4, shape=[96, 40], broadcast_dims=[1])
    T9 = fd.ops.sub(T1, T8)
    T10 = fd.ops.cast(T9, dtype=DataType.BFloat16)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id104(fd)

inputs = [
    torch.testing.make_tensor((96, 40), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
