# Source: pytorch/pytorch, test/test_nvfuser_frontend.py at 0b7e314eaf (2022, the nvfuser._C Fusion API),
#   TestNvFuserFrontend.test_explicit_broadcast_input.
# Computes: a [1, 1, 4] input broadcast_in_dim to the other input's size with all dims kept, plus that input;
#   tensors declared with sizes=inputs[i].size(), strides=inputs[i].stride().
# Adapted: the test's exec_nvfuser(fusion_func, inputs) is written as the harness of that file writes it
#   (fs = Fusion(); with FusionDefinition(fs) as fd: fusion_func(fd); fs.execute(inputs)); its eager check
#   is left out.
import torch

from nvfuser._C import Fusion, FusionCache, FusionDefinition, DataType

inputs = [
    torch.randn(1, 1, 4, device='cuda'),
    torch.randn(2, 3, 4, device='cuda'),
]

def fusion_func(fd: FusionDefinition) :
    t0 = fd.define_tensor(sizes=inputs[0].size(), strides=inputs[0].stride())
    t1 = fd.define_tensor(sizes=inputs[1].size(), strides=inputs[1].stride())

    t0_b = fd.ops.broadcast_in_dim(t0, inputs[1].size(), [0, 1, 2])
    t2 = fd.ops.add(t0_b, t1)

    fd.add_output(t2)

fs = Fusion()
with FusionDefinition(fs) as fd:
    fusion_func(fd)
out = fs.execute(inputs)
