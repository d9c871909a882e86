# Cat of slices: four 32-column slices of [64,256] fp32 (one every 64 columns) joined into [64,128]
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id13(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[64, 32], strides=[1, 1], manual_normalization=0)
    T2 = fd.ops.slice(T0, start_indices=[0, 64], end_indices=[64, 96], strides=[1, 1], manual_normalization=0)
    T3 = fd.ops.slice(T0, start_indices=[0, 128], end_indices=[64, 160], strides=[1, 1], manual_normalization=0)
    T4 = fd.ops.slice(T0, start_indices=[0, 192], end_indices=[64, 224], strides=[1, 1], manual_normalization=0)
    T5 = fd.ops.cat([T1, T2, T3, T4], dim=1, manual_padding=0)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id13(fd)

inputs = [
    torch.testing.make_tensor((64, 256), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
