# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 6c1026983f (2023-05-18),
#   TestNvFuserFrontend.test_integer_division.
# Computes: div (truncating) and truediv of two int64 inputs of 1024.
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
    t2 = fd.ops.div(t0, t1)
    t3 = fd.ops.truediv(t0, t1)
    fd.add_output(t2)
    fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
