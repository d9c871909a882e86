# Concatenating a tensor with an empty one along the last dim (as_strided inputs, broadcast batch).
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id0(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[1, -1, -1, -1], contiguity=[None, True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[1, -1, -1, -1], contiguity=[None, True, False, True], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T3 = fd.ops.mul(T0, S2)
    T4 = fd.ops.cat([T3, T1], dim=-1)
    fd.add_output(T4)


with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((256,), dtype=torch.float32, device='cuda:0').as_strided((1, 4, 8, 8), (256, 64, 8, 1)),
    torch.randn((0,), dtype=torch.float32, device='cuda:0').as_strided((1, 4, 8, 0), (256, 64, 8, 1)),
]
fd.execute(inputs)
