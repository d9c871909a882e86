# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at e1379df0bd (2023-03-16),
#   TestNvFuserFrontend.test_cat.
# Computes: two cats of 2-D inputs (dim 1 and dim 0); a zero-row input is defined, then its name is
#   reused.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(2, 4, device="cuda"),
    torch.randn(2, 3, device="cuda"),
    torch.randn(4, 4, device="cuda"),
    torch.randn(0, 4, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.from_pytorch(inputs[2])
    t3 = fd.from_pytorch(inputs[3])

    t3 = fd.ops.cat([t0, t1], 1)
    fd.add_output(t3)

    t4 = fd.ops.cat([t0, t2], 0)
    fd.add_output(t4)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
