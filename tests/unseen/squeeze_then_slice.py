# Squeeze of two leading broadcast dims, then a positional slice.
import torch
from nvfuser import FusionDefinition

with FusionDefinition() as fd:
    inp = fd.define_tensor([1, 1, 2], contiguity=True)
    out = fd.ops.squeeze(inp, [0, 1])
    out = fd.ops.slice(out, [1], [2])
    fd.add_output(out)

inputs = [torch.randn(1, 1, 2, device='cuda')]
fd.execute(inputs)
