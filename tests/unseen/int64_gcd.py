# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 78f4fa32c6 (2023-05-30),
#   TestNvFuserFrontend.test_gcd.
# Computes: gcd of two int64 inputs.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.testing.make_tensor(1024, device="cuda", dtype=torch.long),
    torch.testing.make_tensor(1024, device="cuda", dtype=torch.long),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.gcd(t0, t1)
    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
