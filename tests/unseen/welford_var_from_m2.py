# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 9552342d06 (2024-10-20),
#   TestNvFuserFrontend.test_welford.
# Computes: welford over the last dim; the variance as var_sum / n, and the mean.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

num_elem = 2
inputs = [torch.randn(2, num_elem, device="cuda")]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    mean, var_sum, n = fd.ops.welford(t0, [-1])
    var = fd.ops.div(var_sum, n)
    fd.add_output(var)
    fd.add_output(mean)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
