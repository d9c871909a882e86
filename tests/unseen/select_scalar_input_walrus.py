# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 3d54c06926 (2024-10-19),
#   TestNvFuserFrontend.test_select.
# Computes: fd.ops.select of row 2 (a scalar input written with := inside the inputs list) along dim 0.
# Adapted: the test wraps this in a helper test_fn(dim) that it runs for dims 0 and 1; here dim = 0 at top
#   level, and the helper's self.exec_nvfuser(...) is written as the with-block and fd.execute below.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    index := 2,
]
dim = 0


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    s1 = fd.define_scalar(dtype=DataType.Int)
    t1 = fd.ops.select(t0, s1, dim)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
