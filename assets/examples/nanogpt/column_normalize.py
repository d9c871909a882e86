# Column reduction + normalize: columns of a column-major [2048,1024] fp32 input (strides (1,2048)) divided by their L2 norm
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id17(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
    T1 = fd.ops.mul(T0, T0)
    T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
    S3 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T4 = fd.ops.add(T2, S3)
    T5 = fd.ops.rsqrt(T4)
    T9 = fd.ops.broadcast_in_dim(T5, shape=[2048, 1024], broadcast_dims=[1])
    T10 = fd.ops.mul(T0, T9)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id17(fd)

inputs = [
    torch.randn(2097152, dtype=torch.float32, device='cuda:0').as_strided((2048, 1024), (1, 2048)),
]
fd.execute(inputs)
