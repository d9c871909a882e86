# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 91e56b022a (2024-02-02),
#   TestNvFuserFrontend.test_expanded_reduction.
# Computes: sum over dim 0 of a 0-dim tensor expanded to [2, 3].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [torch.tensor(1.0, device="cuda").as_strided((2, 3), (0, 0))]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[None, None],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T1 = fd.ops.sum(T0, axes=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
