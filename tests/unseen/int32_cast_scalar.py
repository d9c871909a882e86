# A Double constant cast to Int32 and an Int32 sum (integer accumulation).
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randint(-3, 4, (2, 4, 8), device='cuda', dtype=torch.int32),
    torch.randint(-3, 4, (2, 4, 8), device='cuda', dtype=torch.int32),
]

with FusionDefinition() as fd:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    c0 = fd.define_scalar(3.0)
    t2 = fd.ops.add(t0, t1)
    c1 = fd.ops.cast(c0, DataType.Int32)
    t3 = fd.ops.mul(t2, c1)
    t4 = fd.ops.sum(t3, [-1], False, DataType.Int32)
    fd.add_output(t4)

fd.execute(inputs)
