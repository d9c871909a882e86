# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at d70e19e1a4 (2023-10-04),
#   TestNvFuserFrontend.test_pad_expanded_empty.
# Computes: pad with -3.70753 of an empty [2, 0, 3] input whose strides are all zero.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn((0,), dtype=torch.float64, device="cuda:0").as_strided(
        (2, 0, 3), (0, 0, 0)
    ),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    S1 = fd.define_scalar(-3.70753, dtype=DataType.Double)
    T2 = fd.ops.pad(T0, [0, 0, 1, 1, 1, 0], S1)
    fd.add_output(T2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
