# Source: NVIDIA/Fuser, benchmarks/python/test_silu_mul_bwd.py at 81c4b22fd7 (2026-04-03),
#   silu_mul_bwd_fusion and test_silu_mul_bwd_nvf_benchmark.
# Computes: SwiGLU backward: grads of silu(x) * y written with neg, exp, reciprocal, for float32 [512,
#   11008] (nvfuser_direct).
# Adapted: the benchmark's body for one point of its parametrization (size = (512, 11008), dtype =
#   torch.float32), with PROMOTE_DTYPES copied from global_params.py; its validation and
#   run_benchmark(benchmark, fd.execute, [grads, x, y]) are written as the fd.execute call they make.
import torch
from nvfuser_direct import FusionDefinition, DataType
from nvfuser_direct.pytorch_utils import torch_dtype_to_nvfuser_dtype

# Datatypes that will be promoted to Datatype.Float in Fusion Definitions
PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def silu_mul_bwd_fusion(fd: FusionDefinition, dtype: DataType):
    T0 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False
    )
    T1 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False
    )
    T2 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False
    )

    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
        T2 = fd.ops.cast(T2, dtype=DataType.Float)

    T3 = fd.ops.neg(T1)
    T4 = fd.ops.exp(T3)
    S5 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T6 = fd.ops.add(S5, T4)
    T7 = fd.ops.reciprocal(T6)
    T8 = fd.ops.mul(T1, T7)
    T9 = fd.ops.mul(T0, T2)
    T10 = fd.ops.mul(T0, T8)
    T11 = fd.ops.mul(T9, T7)
    T12 = fd.ops.mul(T9, T1)
    T13 = fd.ops.neg(T12)
    T14 = fd.ops.mul(T13, T7)
    T15 = fd.ops.mul(T14, T7)
    S16 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T17 = fd.ops.mul(S16, T15)
    T18 = fd.ops.mul(T17, T4)
    T19 = fd.ops.neg(T18)
    T20 = fd.ops.add(T11, T19)
    if dtype in PROMOTE_DTYPES:
        T10 = fd.ops.cast(T10, dtype=dtype)
        T20 = fd.ops.cast(T20, dtype=dtype)
    fd.add_output(T10)
    fd.add_output(T20)


size = (512, 11008)
dtype = torch.float32
x = torch.randn(*size, device="cuda", dtype=dtype, requires_grad=True)
y = torch.randn(*size, device="cuda", dtype=dtype, requires_grad=True)
grads = torch.randn(*size, device="cuda", dtype=dtype)

with FusionDefinition() as fd:
    silu_mul_bwd_fusion(fd, torch_dtype_to_nvfuser_dtype(dtype))

fd.execute([grads, x, y])
