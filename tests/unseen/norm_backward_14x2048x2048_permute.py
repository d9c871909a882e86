# Source: NVIDIA/Fuser, tests/python/test_repro.py at 06a16a0b33 (2025-08-24),
#   TestRepro.test_ws_tma_normalization4.
# Computes: an RMSNorm backward over [14, 2048, 2048] bf16 read also as [28672, 2048], with a permute, pow,
#   reciprocal and three reductions.
# Adapted: the test class's make_tensor bounds self.LOW_VAL and self.HIGH_VAL are written as their values,
#   -2 and 2, and the check fd.validate_with_auto_inferred_outputs(outputs, inputs) is left out; otherwise
#   the test's statements as written.
import torch
from nvfuser import FusionDefinition, DataType

# Bug 5374768: Multiple model fail with "Tried to access out of boundary index"
def nvfuser_fusion_id4(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[28672, 2048],
        contiguity=[True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T1 = fd.define_tensor(
        shape=[2048],
        contiguity=[True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[0],
    )
    T2 = fd.define_tensor(
        shape=[14, 2048, 2048],
        contiguity=[True, True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T3 = fd.define_tensor(
        shape=[14, 2048, 1],
        contiguity=[True, True, None],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T8 = fd.ops.reshape(T0, new_shape=[14, 2048, 2048])
    T9 = fd.ops.cast(T1, dtype=DataType.Float)
    T10 = fd.ops.cast(T8, dtype=DataType.Float)
    T15 = fd.ops.broadcast_in_dim(
        T9, shape=[14, 2048, 2048], broadcast_dims=[2]
    )
    T16 = fd.ops.mul(T15, T10)
    T17 = fd.ops.cast(T2, dtype=DataType.Float)
    T18 = fd.ops.mul(T17, T16)
    T19 = fd.ops.sum(T18, dims=[2], keepdim=False, dtype=DataType.Null)
    T24 = fd.ops.broadcast_in_dim(
        T19, shape=[14, 2048, 1], broadcast_dims=[0, 1]
    )
    S25 = fd.define_scalar(3.00000, dtype=DataType.Double)
    T26 = fd.ops.pow(T3, S25)
    S27 = fd.define_scalar(-0.500000, dtype=DataType.Double)
    T28 = fd.ops.mul(S27, T24)
    T29 = fd.ops.mul(T28, T26)
    S30 = fd.define_scalar(2048.00, dtype=DataType.Double)
    S31 = fd.ops.reciprocal(S30)
    T32 = fd.ops.mul(T29, S31)
    T33 = fd.ops.sum(T32, dims=[2], keepdim=False, dtype=DataType.Null)
    T38 = fd.ops.broadcast_in_dim(
        T33, shape=[14, 2048, 1], broadcast_dims=[0, 1]
    )
    T43 = fd.ops.broadcast_in_dim(
        T38, shape=[14, 2048, 2048], broadcast_dims=[0, 1, 2]
    )
    T48 = fd.ops.broadcast_in_dim(
        T3, shape=[14, 2048, 2048], broadcast_dims=[0, 1, 2]
    )
    T49 = fd.ops.mul(T17, T43)
    T50 = fd.ops.mul(T48, T16)
    T51 = fd.ops.add(T50, T49)
    T52 = fd.ops.add(T51, T49)
    T53 = fd.ops.cast(T52, dtype=DataType.BFloat16)
    T54 = fd.ops.mul(T17, T48)
    T55 = fd.ops.mul(T54, T10)
    T59 = fd.ops.reshape(T53, new_shape=[28672, 2048])
    T60 = fd.ops.sum(T55, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T61 = fd.ops.permute(T59, dims=[1, 0])
    T62 = fd.ops.cast(T60, dtype=DataType.BFloat16)
    fd.add_output(T61)
    fd.add_output(T59)
    fd.add_output(T53)
    fd.add_output(T62)

with FusionDefinition() as fd:
    nvfuser_fusion_id4(fd)

inputs = [
    torch.testing.make_tensor(
        (28672, 2048),
        dtype=torch.bfloat16,
        device="cuda:0",
        low=-2,
        high=2,
    ),
    torch.testing.make_tensor(
        (2048,),
        dtype=torch.bfloat16,
        device="cuda:0",
        low=-2,
        high=2,
    ),
    torch.testing.make_tensor(
        (14, 2048, 2048),
        dtype=torch.bfloat16,
        device="cuda:0",
        low=-2,
        high=2,
    ),
    torch.testing.make_tensor(
        (14, 2048, 1),
        dtype=torch.float32,
        device="cuda:0",
        low=-2,
        high=2,
    ),
]
outputs = fd.execute(inputs)
