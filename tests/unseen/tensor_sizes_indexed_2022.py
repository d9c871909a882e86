# Source: pytorch/pytorch, test/test_nvfuser_frontend.py at 0b7e314eaf (2022, the nvfuser._C Fusion API),
#   TestNvFuserFrontend.test_tensor_sizes_both_args_bcast.
# Computes: [1, 3] and [2, 1] inputs each broadcast to [t1_sizes[0], t0_sizes[1]] (fd.ops.tensor_sizes,
#   indexed), then added.
# Adapted: the test's exec_nvfuser(fusion_func, inputs) is written as the harness of that file writes it
#   (fs = Fusion(); with FusionDefinition(fs) as fd: fusion_func(fd); fs.execute(inputs)); its eager check
#   is left out.
import torch

from nvfuser._C import Fusion, FusionCache, FusionDefinition, DataType

def fusion_func(fd : FusionDefinition) :
    t0 = fd.define_tensor(symbolic_sizes=[1, -1], contiguous=[True, True])
    t1 = fd.define_tensor(symbolic_sizes=[-1, 1], contiguous=[True, True])

    t0_sizes = fd.ops.tensor_sizes(t0)
    t1_sizes = fd.ops.tensor_sizes(t1)

    t0_b = fd.ops.broadcast_in_dim(t0, [t1_sizes[0], t0_sizes[1]], [0, 1])
    t1_b = fd.ops.broadcast_in_dim(t1, [t1_sizes[0], t0_sizes[1]], [0, 1])
    t2 = fd.ops.add(t0_b, t1_b)

    fd.add_output(t2)

inputs = [
    torch.randn(1, 3, device='cuda'),
    torch.randn(2, 1, device='cuda'),
]

fs = Fusion()
with FusionDefinition(fs) as fd:
    fusion_func(fd)
out = fs.execute(inputs)
