# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 3d835137eb (2023-11-03),
#   TestNvFuserFrontend.test_mark_alias_pass.
# Computes: only a reshape of a [2, 3, 4] input to [2, 12] (an alias of the input).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType


def reshape(fd: FusionDefinition) -> None:
    x = fd.define_tensor(
        [2, 3, 4], contiguity=[True, True, True], dtype=DataType.Float
    )
    y = fd.ops.reshape(x, [2, 12])
    fd.add_output(y)


x = torch.rand(2, 3, 4, device="cuda")

with FusionDefinition() as fd:
    reshape(fd)

fd.execute([x])
