# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_uniform.
# Computes: fd.ops.uniform(1.8, 1223.5) in Double with the shape of a [64, 128, 1024] input
#   (tensor_sizes).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

input_size = [64, 128, 1024]
dtype = torch.float32
device = 'cuda'
inputs = [
    torch.randn(*input_size, device=device, dtype=dtype),
]
lo = 1.8
hi = 1223.5


def fusion_func(fd: FusionDefinition) :
    t0 = fd.from_pytorch(inputs[0])
    s_lo = fd.define_constant(lo)
    s_hi = fd.define_constant(hi)
    size = fd.ops.tensor_sizes(t0)
    t1 = fd.ops.uniform(s_lo, s_hi, size, DataType.Double)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
