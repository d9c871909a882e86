# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at b7e3694e9c (2024-06-08),
#   TestNvFuserFrontend.test_reshape_squeeze_concretization.
# Computes: slice [2, 5, 10] to [1, 2, 4], reshape to [1, 8], then to [8].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn((100,), dtype=torch.float32, device="cuda:0").as_strided(
        (2, 5, 10), (50, 10, 1)
    ),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[-1, -1, -1],
        contiguity=[True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T1 = fd.ops.slice(
        T0, start_indices=[0, 0, 0], end_indices=[1, 2, 4], strides=[1, 1, 1]
    )
    S2 = fd.define_scalar(1, dtype=DataType.Int)
    S3 = fd.define_scalar(8, dtype=DataType.Int)
    V4 = fd.define_vector([S2, S3], dtype=DataType.Int)
    V5 = fd.define_vector([S3], dtype=DataType.Int)
    T6 = fd.ops.reshape(T1, new_shape=V4)
    T7 = fd.ops.reshape(T6, new_shape=V5)
    # this works fine
    # T7 = fd.ops.reshape(T1, new_shape=V5)
    fd.add_output(T7)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
