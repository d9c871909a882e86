# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09), TestMatmul.test_2d_x_3d.
# Computes: matmul of [2, 3] by [7, 3, 5]; the definition asserts the result has 3 dims.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition


def fusion_func(fd: FusionDefinition) -> None:
    a = fd.define_tensor([2, 3])
    b = fd.define_tensor([7, 3, 5])
    c = fd.ops.matmul(a, b)
    assert c.ndim == 3
    fd.add_output(c)


inputs = [
    torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cuda"),
    torch.testing.make_tensor(7, 3, 5, dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
