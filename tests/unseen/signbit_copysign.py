# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at b8fe89263a (2023-05-16),
#   TestNvFuserFrontend.test_signbit.
# Computes: where(signbit(a), -abs(b), abs(b)): copysign written with signbit.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(3, 4, 5, device="cuda", dtype=torch.float32),
    torch.randn(3, 4, 5, device="cuda", dtype=torch.float32),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.where(fd.ops.signbit(t0), -abs(t1), abs(t1))
    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
