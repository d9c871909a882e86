# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 612b6d77e4 (2024-07-15),
#   TestNvFuserFrontend.test_returning_aliased_outputs.
# Computes: where(x > 0, x, 0) returned twice, once written in place into the input (add_output(T4, T0)),
#   and the input.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [torch.randn((1, 2, 3, 4), dtype=torch.float32, device="cuda:0")]


def fusion_func(fd: FusionDefinition):
    T0 = fd.define_tensor(
        shape=[-1, -1, -1, -1],
        contiguity=[True, True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    S1 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T2 = fd.ops.gt(T0, S1)
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T4 = fd.ops.where(T2, T0, S3)
    fd.add_output(T4)
    fd.add_output(T4, T0)
    fd.add_output(T4)
    fd.add_output(T0)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
