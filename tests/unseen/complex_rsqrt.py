# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_complex_rsqrt.
# Computes: rsqrt of a complex64 and a complex128 input.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(4, device="cuda", dtype=torch.complex64),
    torch.randn(4, device="cuda", dtype=torch.complex128),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.rsqrt(t0)
    fd.add_output(t2)
    t3 = fd.ops.rsqrt(t1)
    fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
