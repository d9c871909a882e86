# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 37bc4fa030 (2025-03-04),
#   TestNvFuserFrontend.test_inplace_update_on_non_contiguous_inputs.
# Computes: relu written in place into a non-contiguous (transposed) [2, 2] input and also returned.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(5, dtype=torch.float32, device="cuda:0").as_strided(
        (2, 2), (1, 3)
    ),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[2, 2],
        contiguity=[False, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[0, 1],
    )
    S1 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T2 = fd.ops.gt(T0, S1)
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T4 = fd.ops.where(T2, T0, S3)
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.set(T5)
    fd.add_output(T6, T0)
    fd.add_output(T6)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
