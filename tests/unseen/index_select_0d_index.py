# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_index_select_scalar_indices.
# Computes: index_select with a 0-dim Long index tensor along dim 0.
# Adapted: the test wraps this in a helper test_fn(dim) that it runs for dims 0 and 1; here dim = 0 at top
#   level, and the helper's self.exec_nvfuser(...) is written as the with-block and fd.execute below.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.tensor(2, device="cuda").to(dtype=torch.long),
]
dim = 0


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.index_select(t0, t1, dim)
    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
