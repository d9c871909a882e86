# nvfuser_direct: the reshape target is a vector of symbolic Ints given as a list input.
import torch
from nvfuser_direct import FusionDefinition

inputs = [torch.randn([2, 2, 2, 2, 2, 2], device='cuda'), [2, 2, 2, 8]]

with FusionDefinition() as fd:
    t0 = fd.from_pytorch(inputs[0])
    n_shape = fd.define_vector(4)
    t1 = fd.ops.reshape(t0, n_shape)
    t2 = fd.ops.sum(t1, dims=[3])
    fd.add_output(t2)

fd.execute(inputs)
