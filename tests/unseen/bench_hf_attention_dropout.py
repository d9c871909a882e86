# Source: NVIDIA/Fuser, benchmarks/python/test_huggingface_attn_fwd.py at 205d1921c3 (2025-11-04),
#   huggingface_attn_fwd_fusion and test_huggingface_attn_fwd_nvf_benchmark.
# Computes: Hugging Face attention probabilities: mask add, reshape to [bs * nh, L, L] with sizes from
#   T0.size(i), softmax, dropout (uniform, p = 0.2) for bf16 [16, 12, 512, 512]; outputs, probabilities,
#   mask.
# Adapted: the benchmark's body for one point of its parametrization (size = (16, 512, 12, 768), dtype =
#   torch.bfloat16), with PROMOTE_DTYPES copied from global_params.py; its validation and
#   run_benchmark(benchmark, fd.execute, [attention_mask, inputs]) are written as the fd.execute call they
#   make.
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

# Datatypes that will be promoted to Datatype.Float in Fusion Definitions
PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


# Fusion from huggingface attention implementation.
# The nvFuser defintion only includes the non-matmul computation (add + reshape + softmax + dropout)
def huggingface_attn_fwd_fusion(
    fd: FusionDefinition,
    dtype: DataType,
    dropout_p: float,
):
    T0 = fd.define_tensor(
        shape=[-1, -1, -1, -1],
        contiguity=[True, True, True, True],
        dtype=dtype,
        is_cpu=False,
    )
    T1 = fd.define_tensor(
        shape=[-1, -1, -1, -1],
        contiguity=[True, True, True, True],
        dtype=dtype,
        is_cpu=False,
    )

    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)

    T4 = fd.ops.add(T1, T0)

    V9 = fd.define_vector(
        [T0.size(0) * T0.size(1), T0.size(2), T0.size(3)], dtype=DataType.Int
    )
    T10 = fd.ops.reshape(T4, new_shape=V9)
    T12 = fd.ops.max(T10, dims=[2], keepdim=False, dtype=DataType.Null)

    V16 = fd.define_vector([T0.size(0) * T0.size(1), T0.size(2), 1], dtype=DataType.Int)
    T17 = fd.ops.broadcast_in_dim(T12, shape=V16, broadcast_dims=[0, 1])
    T22 = fd.ops.broadcast_in_dim(T17, shape=V9, broadcast_dims=[0, 1, 2])
    T23 = fd.ops.sub(T10, T22)
    T24 = fd.ops.exp(T23)
    T25 = fd.ops.sum(T24, dims=[2], keepdim=False, dtype=DataType.Null)

    T30 = fd.ops.broadcast_in_dim(T25, shape=V16, broadcast_dims=[0, 1])
    T35 = fd.ops.broadcast_in_dim(T30, shape=V9, broadcast_dims=[0, 1, 2])

    T36 = fd.ops.reciprocal(T35)
    T37 = fd.ops.mul(T24, T36)

    S39 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S40 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T45 = fd.ops.uniform(S39, S40, shape=V9, dtype=DataType.Float)
    S46 = fd.define_scalar(1 - dropout_p, dtype=DataType.Double)
    T47 = fd.ops.lt(T45, S46)

    T48 = fd.ops.cast(T47, dtype=DataType.Float)
    T49 = fd.ops.mul(T37, T48)
    S50 = fd.define_scalar(1 / (1 - dropout_p), dtype=DataType.Double)
    T51 = fd.ops.mul(T49, S50)

    if dtype in PROMOTE_DTYPES:
        T37 = fd.ops.cast(T37, dtype=dtype)
        T51 = fd.ops.cast(T51, dtype=dtype)

    fd.add_output(T51)
    fd.add_output(T37)
    fd.add_output(T47)


size = (16, 512, 12, 768)
dtype = torch.bfloat16
batch_size, seq_len, nh, n_embd = size
dropout_p = 0.2
inputs = torch.randn(batch_size, nh, seq_len, seq_len, device="cuda", dtype=dtype)

attention_mask = torch.zeros(
    batch_size, nh, seq_len, seq_len, device="cuda", dtype=dtype
)

with FusionDefinition() as fd:
    huggingface_attn_fwd_fusion(
        fd, torch_dtype_to_nvfuser_dtype(dtype), dropout_p
    )

fd.execute([attention_mask, inputs])
