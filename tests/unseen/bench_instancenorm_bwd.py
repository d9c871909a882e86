# Source: NVIDIA/Fuser, benchmarks/python/normalization.py at 205d1921c3 (2025-11-04), norm_bwd_fusion and
#   norm_bwd_nvf_benchmark, as test_instancenorm_bwd_nvf_benchmark calls them.
# Computes: instance-norm backward in training mode on float32 [16, 32, 64, 64]: the mean and invstd
#   inputs computed by torch ops in the script, list.remove on the reduction axes; grads of input, weight,
#   bias.
# Adapted: the body of norm_bwd_nvf_benchmark (normalization.py) for one point of the parametrization of
#   test_instancenorm_bwd_nvf_benchmark (size = (16, 32, 64, 64), dtype = torch.float32, channels_last =
#   False), with PROMOTE_DTYPES copied from global_params.py; its validation and run_benchmark(benchmark,
#   fd.execute, [...]) are written as the fd.execute call they make.
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

# Datatypes that will be promoted to Datatype.Float in Fusion Definitions
PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def norm_bwd_fusion(
    fd: FusionDefinition,
    dtype: DataType,
    norm: str,
    num_dims: int,
    channels_last: bool,
    eps: float = 1e-5,
) -> None:
    """
    Fusion definition for batch norm and instance norm backward in training mode.
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

    num_spatial_dims = num_dims - len(reduction_axes)

    input = fd.define_tensor(
        shape=[-1] * num_dims, contiguity=[True] * num_dims, dtype=dtype, is_cpu=False
    )
    grad = fd.define_tensor(
        shape=[-1] * num_dims, contiguity=[True] * num_dims, dtype=dtype, is_cpu=False
    )
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)

    running_mean = fd.define_tensor(
        shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False
    )
    running_var = fd.define_tensor(
        shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False
    )

    mean = fd.define_tensor(
        shape=[-1] * num_spatial_dims,
        contiguity=[True] * num_spatial_dims,
        dtype=DataType.Float,
        is_cpu=False,
    )
    invstd = fd.define_tensor(
        shape=[-1] * num_spatial_dims,
        contiguity=[True] * num_spatial_dims,
        dtype=DataType.Float,
        is_cpu=False,
    )

    if dtype in PROMOTE_DTYPES:
        input = fd.ops.cast(input, dtype=DataType.Float)
        grad = fd.ops.cast(grad, dtype=DataType.Float)
        weight = fd.ops.cast(weight, dtype=DataType.Float)

    num_features = fd.define_scalar(1)
    for ax in reduction_axes:
        num_features *= input.size(ax)

    norm = fd.ops.reciprocal(num_features)

    mean = fd.ops.broadcast(mean, bcast_mask)

    grad_sum = fd.ops.sum(grad, dims=reduction_axes, keepdim=False)

    x_sub_mean = fd.ops.sub(input, mean)
    dot_p = fd.ops.sum(fd.ops.mul(grad, x_sub_mean), dims=reduction_axes, keepdim=False)

    grad_mean = fd.ops.broadcast(fd.ops.mul(grad_sum, norm), bcast_mask)
    proj_scale = fd.ops.mul(fd.ops.mul(dot_p, norm), fd.ops.mul(invstd, invstd))
    proj_scale = fd.ops.broadcast(proj_scale, bcast_mask)

    invstd_bcast = fd.ops.broadcast(invstd, bcast_mask)
    weight = fd.ops.broadcast(weight, channels_only_bcast_mask)
    grad_scale = fd.ops.mul(weight, invstd_bcast)
    proj = fd.ops.mul(proj_scale, x_sub_mean)

    grad_input = fd.ops.mul(fd.ops.sub(fd.ops.sub(grad, proj), grad_mean), grad_scale)
    grad_weight = fd.ops.mul(dot_p, invstd)
    grad_bias = grad_sum

    if batch_dim not in reduction_axes:
        # Weights and bias are channel-only
        grad_weight = fd.ops.sum(grad_weight, batch_dim, keepdim=False)
        grad_bias = fd.ops.sum(grad_bias, batch_dim, keepdim=False)

    if dtype in PROMOTE_DTYPES:
        grad_input = fd.ops.cast(grad_input, dtype=dtype)
        grad_weight = fd.ops.cast(grad_weight, dtype=dtype)
        grad_bias = fd.ops.cast(grad_bias, dtype=dtype)

    fd.add_output(grad_input)
    fd.add_output(grad_weight)
    fd.add_output(grad_bias)


size = (16, 32, 64, 64)
dtype = torch.float32
norm = "instance_norm"
channels_last = False
eps = 1e-5
# Size is assumed to be in the order N, C, ...

num_dims = len(size)

at_inputs = torch.randn(size, device="cuda", dtype=dtype, requires_grad=True)
at_grads = torch.randn(size, device="cuda", dtype=dtype)
weight = torch.randn(size[1], device="cuda", dtype=dtype, requires_grad=True)
bias = torch.randn(size[1], device="cuda", dtype=dtype, requires_grad=True)

# CPP benchmarks assume mean and variance to be of type Float
running_mean = torch.zeros(size[1], device="cuda", dtype=torch.float)
running_var = torch.ones(size[1], device="cuda", dtype=torch.float)

if channels_last:
    at_inputs = at_inputs.to(memory_format=torch.channels_last)
    at_inputs.retain_grad()
    at_grads = at_grads.to(memory_format=torch.channels_last)

    inputs = at_inputs.clone().detach().permute((0, *range(2, num_dims), 1))
    grads = at_grads.clone().detach().permute((0, *range(2, num_dims), 1))

else:
    inputs = at_inputs
    grads = at_grads

batch_dim = 0
channel_dim = 1 if not channels_last else num_dims - 1
reduction_axes = [i for i in range(len(size)) if i != channel_dim]
if norm == "instance_norm":
    reduction_axes.remove(batch_dim)
mean = inputs.to(torch.float).mean(dim=reduction_axes)
var = inputs.to(torch.float).var(dim=reduction_axes, unbiased=False)
invstd = 1.0 / torch.sqrt(var + eps)

with FusionDefinition() as fd:
    norm_bwd_fusion(
        fd=fd,
        dtype=torch_dtype_to_nvfuser_dtype(dtype),
        norm=norm,
        num_dims=num_dims,
        channels_last=channels_last,
    )

fd.execute([inputs, grads, weight, running_mean, running_var, mean, invstd])
