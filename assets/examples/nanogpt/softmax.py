# Softmax (fp32): softmax over the rows of [2048,1024], written with 2023 spellings (symbolic_sizes=, axes=, output_shape=)
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.max(T0, axes=[1], keepdim=False, dtype=DataType.Null)
    T2 = fd.ops.broadcast_in_dim(T1, output_shape=[2048, 1024], broadcast_dims=[0])
    T3 = fd.ops.sub(T0, T2)
    T4 = fd.ops.exp(T3)
    T5 = fd.ops.sum(T4, axes=[1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.broadcast_in_dim(T5, output_shape=[2048, 1024], broadcast_dims=[0])
    T7 = fd.ops.div(T4, T6)
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2048, 1024, device='cuda'),
]
fd.execute(inputs)
