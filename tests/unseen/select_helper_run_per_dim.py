# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_select.
# Computes: select of an [8, 16] input at index 2, an Int scalar input (written `index := 2` in the inputs
#   list), along dim 0 and then dim 1, from a helper test_fn(dim) run once per dim (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the helper and its two calls kept.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    index := 2,
]

def test_fn(dim):
    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        s1 = fd.define_scalar(dtype=DataType.Int)
        t1 = fd.ops.select(t0, s1, dim)
        fd.add_output(t1)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute(inputs)


test_fn(0)
test_fn(1)
