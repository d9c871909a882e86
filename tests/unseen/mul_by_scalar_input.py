# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 73f14948ba (2023-06-12),
#   TestNvFuserFrontend.test_input_scalar.
# Computes: an input times a Double scalar input (0.1).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn((3,), dtype=torch.float32, device="cuda:0"),
    0.1,
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    S1 = fd.define_scalar()
    T1 = fd.ops.mul(T0, S1)
    fd.add_output(T1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
