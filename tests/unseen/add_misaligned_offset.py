# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 1d6bede4a9 (2024-04-29),
#   TestNvFuserFrontend.test_misaligned_add.
# Computes: add of a 2^20 view starting one element in (cannot vectorize) and a contiguous input; prints
#   the pointer.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.ones(2**20 + 1, device="cuda")[1:],  # cannot vectorize
    torch.ones(2**20, device="cuda"),
]
print(inputs[0].data_ptr(), inputs[0].data_ptr() % 16)


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    c0 = fd.define_scalar(3.0)

    t2 = fd.ops.add(t0, t1)

    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
