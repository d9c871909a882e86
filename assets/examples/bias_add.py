# Bias add: a [128] bias row broadcast over [64,128] and scaled, in 2023 spellings (contiguous=, define_constant, output_shape=)
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguous=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(symbolic_sizes=[-1], contiguous=[True], dtype=DataType.Float)
    S2 = fd.define_constant(0.5)
    T3 = fd.ops.broadcast_in_dim(T1, output_shape=[64, 128], broadcast_dims=[1])
    T4 = fd.ops.add(T0, T3)
    T5 = fd.ops.mul(T4, S2)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.randn(64, 128, device='cuda'),
    torch.randn(128, device='cuda'),
]
fd.execute(inputs)
