# The 2023 README example: symbolic_sizes= and contiguous=, a rank-only define_tensor, define_constant,
# a positional sum with an accumulation dtype.
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(symbolic_sizes=[-1, 1, -1], contiguous=[True, True, True], dtype=DataType.Float)
    t1 = fd.define_tensor(3)
    c0 = fd.define_constant(3.0)
    t2 = fd.ops.add(t0, t1)
    t3 = fd.ops.mul(t2, c0)
    t4 = fd.ops.sum(t3, [-1], False, DataType.Float)
    fd.add_output(t4)

inputs = [torch.ones(2, 1, 8, device='cuda'), torch.ones(2, 4, 8, device='cuda')]
fd.execute(inputs)
