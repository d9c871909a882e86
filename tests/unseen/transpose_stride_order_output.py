# A permuted result written back in the input's memory order via add_output(stride_order=...).
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id1(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.ops.permute(T0, dims=[2, 0, 1])
    S2 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T3 = fd.ops.mul(T1, S2)
    T4 = fd.ops.relu(T3)
    fd.add_output(T4, stride_order=[1, 0, 2])


with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [torch.testing.make_tensor((3, 4, 5), dtype=torch.float32, device='cuda:0')]
fd.execute(inputs)
