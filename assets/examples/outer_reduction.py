# Outer reduction: sum and max of [256,96] fp32 over its rows (dim 0), two reductions of one input
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Float)
    T2 = fd.ops.max(T0, dims=[0], keepdim=False)
    fd.add_output(T1)
    fd.add_output(T2)

inputs = [torch.randn(256, 96, device="cuda")]
fd.execute(inputs)
