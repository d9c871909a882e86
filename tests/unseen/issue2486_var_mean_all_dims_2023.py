# Source: csarofeen/pytorch issue #2486 "`var_mean` fails when reduction occurs across all possible tensor
#   dimensions" (kevinstephano, 2023-02-17): https://github.com/csarofeen/pytorch/issues/2486
# Computes: var_mean (positional correction 0) over all three dims of a [2, 2, 2] input.
# Adapted: none; the repro as posted (an inline with-block, from_pytorch, out = fd.execute(inputs)).
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(2, 2, 2, device='cuda'),
]

with FusionDefinition() as fd:
    t0 = fd.from_pytorch(inputs[0])
    t1,t2 = fd.ops.var_mean(t0, [0, 1, 2], 0)
    fd.add_output(t1)
    fd.add_output(t2)

out = fd.execute(inputs)
