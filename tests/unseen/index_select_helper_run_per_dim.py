# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_index_select.
# Computes: index_select of the sum of two [8, 16] inputs by a 6-element index, along dim 0 and then dim 1,
#   from a helper test_fn(dim) run once per dim (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the helper and its two calls kept.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.randn(8, 16, device="cuda"),
    torch.randint(0, 8, (6,), device="cuda").to(dtype=torch.long),
]

def test_fn(dim):
    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.from_pytorch(inputs[1])
        t2 = fd.from_pytorch(inputs[2])
        t3 = fd.ops.add(t0, t1)
        t4 = fd.ops.index_select(t3, t2, dim)
        fd.add_output(t4)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute(inputs)


test_fn(0)
test_fn(1)
