# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 59e21c8078 (2025-09-09),
#   TestNvFuserFrontend.test_cumsum_int.
# Computes: cumsum of an int32 input, cast to Int.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.testing.make_tensor((4,), dtype=torch.int32, device="cuda:0"),
]


def fusion_func(fd: FusionDefinition):
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.cumsum(T0, dim=-1)
    T2 = fd.ops.cast(T1, dtype=DataType.Int)
    fd.add_output(T2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
