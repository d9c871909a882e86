# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_addcmul.
# Computes: addcmul(t0, t1, t2, value=0.1) of three 1-D inputs.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(4, device="cuda", dtype=torch.float32),
    torch.randn(4, device="cuda", dtype=torch.float32),
    torch.randn(4, device="cuda", dtype=torch.float32),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.from_pytorch(inputs[2])
    c0 = fd.define_constant(0.1)

    t3 = fd.ops.addcmul(t0, t1, t2, c0)

    fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
