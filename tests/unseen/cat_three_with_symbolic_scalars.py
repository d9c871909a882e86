# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at c77d1c394c (2024-03-09),
#   TestNvFuserFrontend.test_cat_symbolic.
# Computes: scaled q/k permuted and reshaped to [4, 64, 768], cat with a third tensor along dim 2, and its
#   sum; nine unused symbolic scalar inputs.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    0.29730177875068026,
    0.29730177875068026,
    4,
    64,
    768,
    4,
    64,
    768,
    2,
    torch.randn([4, 6, 64, 128], dtype=torch.float32, device="cuda"),
    torch.randn([4, 6, 64, 128], dtype=torch.float32, device="cuda"),
    torch.randn([4, 64, 768], dtype=torch.float32, device="cuda"),
]


def fusion_func(fd: FusionDefinition) -> None:
    S0 = fd.define_scalar(None, dtype=DataType.Double)
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Int)
    S4 = fd.define_scalar(None, dtype=DataType.Int)
    S5 = fd.define_scalar(None, dtype=DataType.Int)
    S6 = fd.define_scalar(None, dtype=DataType.Int)
    S7 = fd.define_scalar(None, dtype=DataType.Int)
    S8 = fd.define_scalar(None, dtype=DataType.Int)
    T9 = fd.define_tensor(
        shape=[-1, -1, -1, -1],
        contiguity=[True, True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T10 = fd.define_tensor(
        shape=[-1, -1, -1, -1],
        contiguity=[True, True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T11 = fd.define_tensor(
        shape=[-1, -1, -1],
        contiguity=[True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T12 = fd.ops.mul(T10, S1)
    T13 = fd.ops.permute(T12, dims=[0, 1, 3, 2])
    T14 = fd.ops.mul(T9, S0)
    T15 = fd.ops.permute(T14, dims=[0, 2, 1, 3])
    S16 = fd.define_scalar(4, dtype=DataType.Int)
    S17 = fd.define_scalar(64, dtype=DataType.Int)
    S18 = fd.define_scalar(768, dtype=DataType.Int)
    V19 = fd.define_vector([S16, S17, S18], dtype=DataType.Int)
    T20 = fd.ops.reshape(T15, new_shape=V19)
    T21 = fd.ops.permute(T13, dims=[0, 2, 1, 3])
    S22 = fd.define_scalar(4, dtype=DataType.Int)
    S23 = fd.define_scalar(64, dtype=DataType.Int)
    S24 = fd.define_scalar(768, dtype=DataType.Int)
    V25 = fd.define_vector([S22, S23, S24], dtype=DataType.Int)
    T26 = fd.ops.reshape(T21, new_shape=V25)
    T27 = fd.ops.cat([T20, T26, T11], dim=2)
    T28 = fd.ops.sum(T27, [0, 1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T27)
    fd.add_output(T28)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
