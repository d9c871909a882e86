# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 8fd7c43977 (2023-10-21),
#   TestNvFuserFrontend.test_allocation_domain_index_select.
# Computes: index_select along dim 1 of a column-major [9, 28] input (stride_order=[0, 1]).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn((252,), dtype=torch.float32, device="cuda:0").as_strided(
        (9, 28), (1, 9)
    ),
    torch.randint(0, 28, (4,), dtype=torch.int64, device="cuda:0"),
]


def fusion_func(fd: FusionDefinition) -> None:
    T1 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[0, 1],
    )
    T2 = fd.define_tensor(
        shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False
    )
    T3 = fd.ops.index_select(T1, T2, dim=1)
    fd.add_output(T3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
