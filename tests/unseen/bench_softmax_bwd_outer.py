# Source: NVIDIA/Fuser, benchmarks/python/test_softmax_bwd.py at 205d1921c3 (2025-11-04),
#   softmax_bwd_fusion and test_softmax_bwd_nvf_benchmark.
# Computes: softmax backward over dim 0 (outer reduction) of bf16 [16384, 1024], with an if/else choosing
#   the broadcast shape and `dtype is not DataType.Float` casts.
# Adapted: the benchmark's body for one point of its parametrization (size = (16384, 1024), dtype =
#   torch.bfloat16, reduction_axis = 0); its validation and run_benchmark(benchmark, fd.execute, inputs)
#   are written as the fd.execute call they make.
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype


def softmax_bwd_fusion(
    fd: FusionDefinition, dtype: DataType, reduction_axis: int
) -> None:
    T0 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=dtype,
        is_cpu=False,
    )
    T1 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=dtype,
        is_cpu=False,
    )

    if dtype is not DataType.Float:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)

    T4 = fd.ops.mul(T0, T1)
    T5 = fd.ops.sum(T4, dims=[reduction_axis], keepdim=False, dtype=DataType.Null)

    if reduction_axis:
        V9 = fd.define_vector([T0.size(0), 1], dtype=DataType.Int)
    else:
        V9 = fd.define_vector([1, T0.size(1)], dtype=DataType.Int)
    bcast_dim = 1 - reduction_axis

    T10 = fd.ops.broadcast_in_dim(T5, shape=V9, broadcast_dims=[bcast_dim])

    if dtype is not DataType.Float:
        T10 = fd.ops.cast(T10, dtype=dtype)

    V15 = fd.define_vector([T0.size(0), T0.size(1)], dtype=DataType.Int)
    T16 = fd.ops.broadcast_in_dim(T10, shape=V15, broadcast_dims=[0, 1])

    if dtype is not DataType.Float:
        T16 = fd.ops.cast(T16, dtype=DataType.Float)

    T18 = fd.ops.sub(T1, T16)
    T19 = fd.ops.mul(T0, T18)

    if dtype is not DataType.Float:
        T19 = fd.ops.cast(T19, dtype=dtype)
    fd.add_output(T19)


size = (16384, 1024)
dtype = torch.bfloat16
reduction_axis = 0
inputs = [
    torch.randn(size, device="cuda", dtype=dtype, requires_grad=True),
    torch.randn(size, device="cuda", dtype=dtype),
]

with FusionDefinition() as fd:
    softmax_bwd_fusion(fd, torch_dtype_to_nvfuser_dtype(dtype), reduction_axis)

fd.execute(inputs)
