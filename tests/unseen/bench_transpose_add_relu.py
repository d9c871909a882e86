# Source: NVIDIA/Fuser, benchmarks/python/test_transpose.py at 205d1921c3 (2025-11-04), transpose_fusion
#   and test_transpose_nvf_benchmark.
# Computes: relu(permute(a + b)) swapping dims 0 and 2 of bf16 [256, 128, 512]; the permutation is
#   computed in Python with a tuple swap.
# Adapted: the benchmark's body for one point of its parametrization (size = (256, 128, 512), dtype =
#   torch.bfloat16, axes = (0, 2)), with PROMOTE_DTYPES copied from global_params.py; its validation and
#   run_benchmark(benchmark, fd.execute, [input1, input2]) are written as the fd.execute call they make.
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

# Datatypes that will be promoted to Datatype.Float in Fusion Definitions
PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def transpose_fusion(
    fd: FusionDefinition,
    dtype: DataType,
    axes: list,
):
    T0 = fd.define_tensor(
        shape=[-1, -1, -1], contiguity=[True, True, True], dtype=dtype, is_cpu=False
    )
    T1 = fd.define_tensor(
        shape=[-1, -1, -1], contiguity=[True, True, True], dtype=dtype, is_cpu=False
    )

    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)

    T4 = fd.ops.add(T0, T1)
    T5 = fd.ops.permute(T4, dims=axes)

    if dtype in PROMOTE_DTYPES:
        T5 = fd.ops.cast(T5, dtype=dtype)

    S6 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T7 = fd.ops.gt(T5, S6)
    T9 = fd.ops.where(T7, T5, S6)

    fd.add_output(T9)


size = (256, 128, 512)
dtype = torch.bfloat16
axes = (0, 2)
input1 = torch.randn(size, device="cuda", dtype=dtype)
input2 = torch.randn(size, device="cuda", dtype=dtype)
permute_axes = list(range(len(size)))
permute_axes[axes[0]], permute_axes[axes[1]] = (
    permute_axes[axes[1]],
    permute_axes[axes[0]],
)

with FusionDefinition() as fd:
    transpose_fusion(fd, torch_dtype_to_nvfuser_dtype(dtype), permute_axes)

fd.execute([input1, input2])
