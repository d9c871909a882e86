# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09), TestMatmul.test_linear_slice.
# Computes: linear of [1, 2, 3] by [4, 3], then a slice of the first 3 columns.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition


def fusion_func(fd: FusionDefinition) -> None:
    a = fd.define_tensor([1, 2, 3])
    b = fd.define_tensor([4, 3])
    c = fd.ops.linear(a, b)
    d = fd.ops.slice(c, start_indices=[0, 0, 0], end_indices=[1, 2, 3])
    fd.add_output(d)


inputs = [
    torch.randn(1, 2, 3, device="cuda:0"),
    torch.randn(4, 3, device="cuda:0"),
]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
