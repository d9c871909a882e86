# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at fe9addc912 (2026-01-27),
#   TestNvFuserFrontend.test_var_mean_correction.
# Computes: var_mean over the last dim of a [2, 2] input with correction 2, so the variance divides by
#   zero.
# Adapted: the test builds the definition through fusion_decorator(correction) for every correction in
#   range(num_elem + 5); here correction = 2, and its self.exec_nvfuser(...) is written as the with-block
#   and fd.execute below.
import torch
from nvfuser import FusionDefinition

num_elem = 2
inputs = [torch.randn(2, num_elem, device="cuda")]


# use decorator to create fusion_func
def fusion_decorator(correction):
    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1, t2 = fd.ops.var_mean(t0, [-1], correction)
        fd.add_output(t1)
        fd.add_output(t2)

    return fusion_func


correction = 2

with FusionDefinition() as fd:
    fusion_decorator(correction)(fd)

fd.execute(inputs)
