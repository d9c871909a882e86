# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_real_imag.
# Computes: real and imag of a complex input through the tensor methods t0.real() and t0.imag().
# Adapted: the test loops over complex128 and complex64; here dtype = torch.complex64, and its
#   self.exec_nvfuser(...) is written as the with-block and fd.execute below.
import torch
from nvfuser import FusionDefinition

dtype = torch.complex64
inputs = [
    torch.randn(5, dtype=dtype, device='cuda'),
]


def fusion_func(fd: FusionDefinition) :
    t0 = fd.from_pytorch(inputs[0])
    fd.add_output(t0.real())
    fd.add_output(t0.imag())


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
