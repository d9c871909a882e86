# Source: NVIDIA/Fuser, benchmarks/python/normalization.py at 205d1921c3 (2025-11-04), norm_fwd_fusion and
#   norm_fwd_nvf_benchmark, as test_batchnorm_fwd_nvf_benchmark calls them.
# Computes: batch-norm forward in training mode on a channels-last bf16 [32, 64, 56, 56] input (permuted
#   to NHWC): reduction axes, broadcast masks built with comprehensions; output, mean, invstd.
# Adapted: the body of norm_fwd_nvf_benchmark (normalization.py) for one point of the parametrization of
#   test_batchnorm_fwd_nvf_benchmark (size = (32, 64, 56, 56), dtype = torch.bfloat16, channels_last =
#   True), with PROMOTE_DTYPES copied from global_params.py; its validation and run_benchmark(benchmark,
#   fd.execute, [...]) are written as the fd.execute call they make.
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

# Datatypes that will be promoted to Datatype.Float in Fusion Definitions
PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def norm_fwd_fusion(
    fd: FusionDefinition,
    dtype: DataType,
    norm: str,
    num_dims: int,
    channels_last: bool,
    eps: float = 1e-5,
    momentum: float = 0.01,
) -> None:
    """
    Fusion definition for batch norm and instance norm forward in training mode.
    """
    batch_dim = 0
    channel_dim = 1 if not channels_last else num_dims - 1
    bcast_mask = [True if i != channel_dim else False for i in range(num_dims)]
    channels_only_bcast_mask = [
        True if i != channel_dim else False for i in range(num_dims)
    ]

    reduction_axes = [i for i in range(num_dims) if i != channel_dim]
    if norm == "instance_norm":
        reduction_axes.remove(batch_dim)
        bcast_mask[batch_dim] = False

    input = fd.define_tensor(
        shape=[-1] * num_dims, contiguity=[True] * num_dims, dtype=dtype, is_cpu=False
    )
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    bias = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)

    running_mean = fd.define_tensor(
        shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False
    )
    running_var = fd.define_tensor(
        shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False
    )

    if dtype in PROMOTE_DTYPES:
        input = fd.ops.cast(input, dtype=DataType.Float)
        weight = fd.ops.cast(weight, dtype=DataType.Float)
        bias = fd.ops.cast(bias, dtype=DataType.Float)

    var, mean = fd.ops.var_mean(input, dims=reduction_axes, correction=0, keepdim=False)

    eps = fd.define_scalar(eps, dtype=DataType.Double)
    var_eps = fd.ops.add(var, eps)
    invstd = fd.ops.rsqrt(var_eps)

    invstd_bcast = fd.ops.broadcast(invstd, bcast_mask)
    mean_bcast = fd.ops.broadcast(mean, bcast_mask)
    x_sub_mean = fd.ops.sub(input, mean_bcast)

    x_norm = fd.ops.mul(x_sub_mean, invstd_bcast)

    weight = fd.ops.broadcast(weight, channels_only_bcast_mask)
    x_scaled = fd.ops.mul(x_norm, weight)
    bias = fd.ops.broadcast(bias, channels_only_bcast_mask)
    output = fd.ops.add(x_scaled, bias)

    rev_momentum = fd.define_scalar(1 - momentum, dtype=DataType.Double)
    momentum = fd.define_scalar(momentum, dtype=DataType.Double)

    updated_mean = fd.ops.add(
        fd.ops.mul(momentum, mean), fd.ops.mul(rev_momentum, running_mean)
    )
    updated_var = fd.ops.add(
        fd.ops.mul(momentum, var), fd.ops.mul(rev_momentum, running_var)
    )

    if batch_dim not in reduction_axes:
        inverse_batch_size = fd.ops.reciprocal(input.size(0))
        updated_mean = fd.ops.mul(
            fd.ops.sum(updated_mean, batch_dim), inverse_batch_size
        )
        updated_var = fd.ops.mul(fd.ops.sum(updated_var, batch_dim), inverse_batch_size)

    if dtype in PROMOTE_DTYPES:
        output = fd.ops.cast(output, dtype=dtype)

    fd.add_output(output)
    fd.add_output(mean)
    fd.add_output(invstd)


size = (32, 64, 56, 56)
dtype = torch.bfloat16
norm = "batch_norm"
channels_last = True
eps = 1e-5

# Size is assumed to be in the order N, C, ...
num_dims = len(size)

at_inputs = torch.randn(size, device="cuda", dtype=dtype, requires_grad=True)
weight = torch.randn(size[1], device="cuda", dtype=dtype)
bias = torch.randn(size[1], device="cuda", dtype=dtype)

# CPP benchmarks assume mean and variance to be of type Float
running_mean = torch.zeros(size[1], device="cuda", dtype=torch.float)
running_var = torch.ones(size[1], device="cuda", dtype=torch.float)

if channels_last:
    at_inputs = at_inputs.to(memory_format=torch.channels_last)
    inputs = at_inputs.clone().detach().permute((0, *range(2, num_dims), 1))
else:
    inputs = at_inputs

with FusionDefinition() as fd:
    norm_fwd_fusion(
        fd=fd,
        dtype=torch_dtype_to_nvfuser_dtype(dtype),
        norm=norm,
        num_dims=num_dims,
        channels_last=channels_last,
    )

fd.execute([inputs, weight, bias, running_mean, running_var])
