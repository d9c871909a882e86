# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 967e302973 (2023-04-28),
#   TestNvFuserFrontend.test_take_along_axis.
# Computes: take_along_axis (torch.gather with an index as large as the source) of the sum of two inputs,
#   along dim 1.
# Adapted: the test wraps this in a helper test_fn(dim) that it runs for dims 0 and 1; here dim = 1 at top
#   level, and the helper's self.exec_nvfuser(...) is written as the with-block and fd.execute below.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.randn(8, 16, device="cuda"),
    torch.randint(0, 8, (8, 16), device="cuda").to(dtype=torch.long),
]
dim = 1


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.from_pytorch(inputs[2])
    t3 = fd.ops.add(t0, t1)
    t4 = fd.ops.take_along_axis(t3, t2, dim)
    fd.add_output(t4)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
