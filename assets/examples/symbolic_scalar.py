# Symbolic scalar: y = x * alpha + beta where alpha is a scalar input given at run time (0.75 here)
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id23(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    T2 = fd.ops.mul(T0, S1)
    S3 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T4 = fd.ops.add(T2, S3)
    fd.add_output(T4)

with FusionDefinition() as fd:
    nvfuser_fusion_id23(fd)

inputs = [
    torch.testing.make_tensor((48, 80), dtype=torch.float32, device='cuda:0'),
    0.75,
]
fd.execute(inputs)
