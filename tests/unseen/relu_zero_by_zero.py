# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 44e99fed36 (2023-04-15),
#   TestNvFuserFrontend.test_zero_size_dim.
# Computes: relu of a [0, 0] input declared with symbolic_sizes=[0, 0].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.ones(0, 0, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.define_tensor(
        symbolic_sizes=[0, 0], contiguous=[True, True], dtype=DataType.Float
    )
    t1 = fd.ops.relu(t0)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
