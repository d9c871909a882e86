# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 58a0fda657 (2023-05-15),
#   TestNvFuserFrontend.test_segment_set.
# Computes: neg, a segment_set boundary, relu.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(5, 5, 5, device="cuda"),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.neg(T0)
    T2 = fd.ops.segment_set(T1)
    T3 = fd.ops.relu(T2)
    fd.add_output(T3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
