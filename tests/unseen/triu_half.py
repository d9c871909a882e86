# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at e057a9bac3 (2025-01-08),
#   TestNvFuserFrontend.test_triu.
# Computes: triu with diagonal -1 of a [4, 16] half input.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(4, 16, device="cuda", dtype=torch.float16),
]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.triu(t0, -1)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
