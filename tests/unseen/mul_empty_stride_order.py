# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 22e5f45065 (2023-11-21),
#   TestNvFuserFrontend.test_allocation_domain_concretization.
# Computes: mul by 2 of an empty [1, 0, 1, 1] Double input declared with stride_order=[0, 3, 2, 1].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn((0,), dtype=torch.float64, device="cuda:0").as_strided(
        (1, 0, 1, 1), (0, 1, 1, 1)
    ),
]


def fusion_func(fd: FusionDefinition) -> None:
    T1 = fd.define_tensor(
        shape=[1, -1, 1, 1],
        contiguity=[True, None, None, None],
        dtype=DataType.Double,
        is_cpu=False,
        stride_order=[0, 3, 2, 1],
    )
    S1 = fd.define_scalar(2.0, dtype=DataType.Double)
    T2 = fd.ops.mul(T1, S1)
    fd.add_output(T2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
