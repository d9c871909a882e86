# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_reduction_complex_number.
# Computes: sum over the last dim of a [2, 32] complex64 input, accumulated in ComplexFloat.
# Adapted: the test wraps this in a helper test_dtype(torch_dtype) that it runs for complex64 and
#   complex128; here torch_dtype = torch.complex64 at top level, and the helper's self.exec_nvfuser(...)
#   is written as the with-block and fd.execute below.
import torch
from nvfuser import FusionDefinition
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

torch_dtype = torch.complex64

inputs = [torch.randn(2, 32, device='cuda', dtype=torch_dtype)]


def fusion_func(fd: FusionDefinition) :
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.sum(t0, [-1], False, torch_dtype_to_nvfuser_dtype(torch_dtype))
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
