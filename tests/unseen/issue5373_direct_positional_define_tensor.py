# Source: NVIDIA/Fuser, issue #5373 "Feature request: execute fusion definition with torch eager mode"
#   (xwang233, 2025-10-10), the script in the description: https://github.com/NVIDIA/Fuser/issues/5373
# Computes: ([2, 1, 8] + [2, 4, 8]) * 3.0 summed over the last dim, in nvfuser_direct; the second tensor is
#   declared positionally as define_tensor([-1, -1, -1]).
# Adapted: none; the script as posted (separate input1/input2, fd.execute([...])[0], a commented wish).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd :
    t0 = fd.define_tensor(shape=[-1, 1, -1],
                          contiguity=[True, None, True],
                          dtype=DataType.Float)
    t1 = fd.define_tensor([-1, -1, -1])
    c0 = fd.define_scalar(3.0)

    t2 = fd.ops.add(t0, t1)
    t3 = fd.ops.mul(t2, c0)
    t4 = fd.ops.sum(t3, [-1], False, DataType.Float)

    fd.add_output(t4)

input1 = torch.ones(2, 1, 8, device='cuda')
input2 = torch.ones(2, 4, 8, device='cuda')

nvf_out = fd.execute([input1, input2])[0]
# torch_out = fd.execute_torch([input1, input2])[0] # 😃
