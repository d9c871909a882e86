# Source: pytorch/pytorch, test/test_nvfuser_frontend.py at 0b7e314eaf (2022, the nvfuser._C Fusion API),
#   TestNvFuserFrontend.test_broadcast_mixing.
# Computes: a [3, 1] input declared positionally by sizes [3, 1] and strides [1, 1], plus a [3] input
#   broadcast_in_dim to [3, 3].
# Adapted: the test's exec_nvfuser(fusion_func, inputs) is written as the harness of that file writes it
#   (fs = Fusion(); with FusionDefinition(fs) as fd: fusion_func(fd); fs.execute(inputs)); its eager check
#   is left out.
import torch

from nvfuser._C import Fusion, FusionCache, FusionDefinition, DataType

inputs = [
    torch.randn(3, 1, device='cuda'),
    torch.randn(3, device='cuda'),
]

def fusion_func(fd: FusionDefinition) :
    t0 = fd.define_tensor([3, 1], [1, 1])
    t1 = fd.define_tensor(1)

    t1_b = fd.ops.broadcast_in_dim(t1, [3, 3], [0])
    t2 = fd.ops.add(t0, t1_b)

    fd.add_output(t2)

fs = Fusion()
with FusionDefinition(fs) as fd:
    fusion_func(fd)
out = fs.execute(inputs)
