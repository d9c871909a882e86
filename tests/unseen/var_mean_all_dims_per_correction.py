# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_all_dim_var_mean.
# Computes: var_mean over every dim of a [2, 2, 2] input, the fusion function made by a decorator-like
#   helper per correction, the with-block in a top-level loop over corrections 0 and 1 (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the loop kept.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [torch.randn(2, 2, 2, device="cuda")]

# use decorator to create fusion_func
def fusion_decorator(correction):
    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1, t2 = fd.ops.var_mean(t0, [0, 1, 2], correction)
        fd.add_output(t1)
        fd.add_output(t2)

    return fusion_func

list_of_test_cases = [0, 1]
for correction in list_of_test_cases:
    with FusionDefinition() as fd:
        fusion_decorator(correction)(fd)
    fuser_result = fd.execute(inputs)
