# torch.gather semantics after an add, index tensor smaller than the source.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(8, 16, device='cuda'),
    torch.randn(8, 16, device='cuda'),
    torch.randint(0, 8, (4, 4), device='cuda').to(dtype=torch.long),
]

with FusionDefinition() as fd:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.from_pytorch(inputs[2])
    t3 = fd.ops.add(t0, t1)
    t4 = fd.ops.gather(t3, t2, 0)
    fd.add_output(t4)

fd.execute(inputs)
