# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_arithmetic_ops.
# Computes: Python operators on fusion values: unary minus, abs(), **, and -t1 * (c0 - t0 * t0) / t2 +
#   c2**c1 - c0.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(3, 4, 5, device="cuda", dtype=torch.float32),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])

    c0 = fd.define_constant(1.0)

    t1 = -t0
    t2 = abs(t0)
    c1 = -c0
    c2 = abs(c0)

    # Using literals like this will work once
    # https://github.com/csarofeen/pytorch/pull/2449 is merged
    # t3 = -t1 * (1 + t0 ** 2) / t2 + c2 ** c1 - 1.0
    t3 = -t1 * (c0 - t0 * t0) / t2 + c2**c1 - c0

    fd.add_output(t1)
    fd.add_output(t2)
    fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
