# nvfuser_direct: reshape to [size(x, 0), d1, d2] where d1, d2 are Int32 scalar inputs.
import torch
from nvfuser_direct import FusionDefinition, DataType


def dynamic_reshape(fd: FusionDefinition) -> None:
    x = fd.define_tensor([-1, -1], [True, True])
    d0 = fd.ops.size(x, 0)
    d1 = fd.define_scalar(dtype=DataType.Int32)
    d2 = fd.define_scalar(dtype=DataType.Int32)
    y = fd.ops.reshape(x, [d0, d1, d2])
    fd.add_output(y)


with FusionDefinition() as fd:
    dynamic_reshape(fd)

inputs = [torch.rand(3, 4, device='cuda'), 2, 2]
fd.execute(inputs)
