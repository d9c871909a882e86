# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_index_select_scalar_indices.
# Computes: index_select of an [8, 16] input by a 0-d int64 index, along dim 0 and then dim 1, from a helper
#   test_fn(dim) run once per dim (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the helper and its two calls kept.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.tensor(2, device="cuda").to(dtype=torch.long),
]

def test_fn(dim):
    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.from_pytorch(inputs[1])
        t2 = fd.ops.index_select(t0, t1, dim)
        fd.add_output(t2)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute(inputs)


test_fn(0)
test_fn(1)
