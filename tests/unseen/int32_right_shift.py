# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 834193b346 (2023-05-26),
#   TestNvFuserFrontend.test_right_shift_arithmetic.
# Computes: bitwise_right_shift by 3 of int32 extremes.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.tensor([-2147483648, 1073741824], dtype=torch.int32, device="cuda")
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    c0 = fd.define_constant(3)
    t1 = fd.ops.bitwise_right_shift(t0, c0)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
