# One BFloat16 input cast twice to Float and reduced three ways (input forwarding).
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T3 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T14 = fd.ops.cast(T3, dtype=DataType.Float)
    T15 = fd.ops.cast(T3, dtype=DataType.Float)
    T16 = fd.ops.sum(T15, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T20 = fd.ops.sum(T14, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T31 = fd.ops.sum(T14, dims=[2], keepdim=False, dtype=DataType.Null)
    fd.add_output(T16)
    fd.add_output(T20)
    fd.add_output(T31)

inputs = [torch.randn((4, 8, 16), dtype=torch.bfloat16, device='cuda:0')]
fd.execute(inputs)
