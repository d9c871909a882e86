# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at c15db96931 (2023-04-10),
#   TestNvFuserFrontend.test_constant_nans.
# Computes: an input plus the constant float('nan').
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(4, 4, device="cuda"),
]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    c0 = fd.define_constant(float("nan"))
    t1 = fd.ops.add(t0, c0)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
