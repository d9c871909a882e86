# Positional define_tensor and broadcast_in_dim that expands, then a reshape that mixes the new dim.
import torch
from nvfuser import FusionDefinition

with FusionDefinition() as fd:
    x = fd.define_tensor([4, 5], [True, True])
    y = fd.ops.broadcast_in_dim(x, [4, 5, 6], [0, 1])
    y = fd.ops.reshape(y, [40, 3])
    fd.add_output(y)

inputs = [torch.rand(4, 5, device='cuda')]
fd.execute(inputs)
