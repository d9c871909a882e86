# nvfuser_direct lets Python numbers stand as operands: scaled softmax-free GELU (tanh form).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
    t1 = fd.ops.mul(t0, t0)
    t2 = fd.ops.mul(t1, t0)
    t3 = fd.ops.mul(t2, 0.044715)
    t4 = fd.ops.add(t0, t3)
    t5 = fd.ops.mul(t4, 0.7978845608028654)
    t6 = fd.ops.tanh(t5)
    t7 = fd.ops.add(t6, 1.0)
    t8 = fd.ops.mul(t0, 0.5)
    t9 = fd.ops.mul(t8, t7)
    fd.add_output(t9)

inputs = [torch.randn(6, 10, device='cuda')]
fd.execute(inputs)
