# Source: NVIDIA/Fuser, benchmarks/python/test_dropout_layernorm_fwd.py at 81c4b22fd7 (2026-04-03),
#   dropout_layernorm_fwd_fusion and test_dropout_layernorm_fwd_nvf_benchmark.
# Computes: layernorm(input2 + dropout(input1, p = 0.2)) for bf16 [2048, 8192] in nvfuser_direct: uniform
#   over T2.shape(), var_mean, broadcasts to [T2.size(0), 1]; outputs, mean, invstd and the dropout mask.
# Adapted: the benchmark's body for one point of its parametrization (size = (2048, 8192), dtype =
#   torch.bfloat16), with PROMOTE_DTYPES copied from global_params.py; its validation and
#   run_benchmark(benchmark, fd.execute, inputs) are written as the fd.execute call they make.
import torch
from nvfuser_direct import FusionDefinition, DataType
from nvfuser_direct.pytorch_utils import torch_dtype_to_nvfuser_dtype

# Datatypes that will be promoted to Datatype.Float in Fusion Definitions
PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def dropout_layernorm_fwd_fusion(
    fd: FusionDefinition, dtype: DataType, dropout_p: float, eps: float = 1e-5
) -> None:
    """
    Forward pass fusion definition for computing:
        output = layernorm (input2 + dropout (input1, p=dropout_p))

    Fusion inputs: input1, input2, weights, bias
    Fusion outputs: output, mean, invstd, dropout_mask
    """
    T2 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False
    )
    T3 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False
    )
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S4 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T8 = fd.ops.uniform(S3, S4, shape=T2.shape(), dtype=DataType.Float)
    S9 = fd.define_scalar(1 - dropout_p, dtype=DataType.Double)
    T10 = fd.ops.lt(T8, S9)
    T11 = fd.ops.cast(T10, dtype=DataType.Float)
    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
        T2 = fd.ops.cast(T2, dtype=DataType.Float)
        T3 = fd.ops.cast(T3, dtype=DataType.Float)

    # Dropout + Add
    T13 = fd.ops.mul(T2, T11)
    S14 = fd.define_scalar(1 / (1 - dropout_p), dtype=DataType.Double)
    T15 = fd.ops.mul(T13, S14)
    T16 = fd.ops.add(T3, T15)
    # Layernorm
    T17, T18 = fd.ops.var_mean(T16, dims=[1], correction=0, keepdim=False)
    T22 = fd.ops.broadcast_in_dim(T17, shape=[T2.size(0), 1], broadcast_dims=[0])
    T26 = fd.ops.broadcast_in_dim(T18, shape=[T2.size(0), 1], broadcast_dims=[0])
    S27 = fd.define_scalar(eps, dtype=DataType.Double)
    T28 = fd.ops.add(T22, S27)
    T29 = fd.ops.rsqrt(T28)
    T33 = fd.ops.broadcast_in_dim(T26, shape=T2.shape(), broadcast_dims=[0, 1])
    T34 = fd.ops.sub(T16, T33)
    T38 = fd.ops.broadcast_in_dim(T29, shape=T2.shape(), broadcast_dims=[0, 1])
    T39 = fd.ops.mul(T34, T38)
    T43 = fd.ops.broadcast_in_dim(T1, shape=T2.shape(), broadcast_dims=[1])
    T45 = fd.ops.mul(T39, T43)
    T49 = fd.ops.broadcast_in_dim(T0, shape=T2.shape(), broadcast_dims=[1])
    T51 = fd.ops.add(T45, T49)
    if dtype in PROMOTE_DTYPES:
        T51 = fd.ops.cast(T51, dtype=dtype)

    fd.add_output(T51)
    fd.add_output(T18)
    fd.add_output(T29)
    fd.add_output(T10)


size = (2048, 8192)
dtype = torch.bfloat16
inputs = [
    torch.randn(size, device="cuda", dtype=dtype),
    torch.randn(size, device="cuda", dtype=dtype),
    torch.ones(size[1], device="cuda", dtype=dtype),
    torch.zeros(size[1], device="cuda", dtype=dtype),
]

dropout_p = 0.2

with FusionDefinition() as fd:
    dropout_layernorm_fwd_fusion(fd, torch_dtype_to_nvfuser_dtype(dtype), dropout_p)

fd.execute(inputs)
