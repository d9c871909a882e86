# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_prim_layer_norm_fwd.
# Computes: layer norm over the last dim of [64, 128, 1024] written with sums and define_constant; the
#   helper takes normalization_axis, norm_size, input_shape, eps and keepDim, bound with
#   functools.partial.
# Adapted: the test also runs nvfuser_fusion_var_mean (kept, unused); the eager reference
#   primitive_definition is left out; the self.exec_nvfuser(fusion_func_1, inputs) call is written as the
#   with-block below.
from functools import partial
import torch
from nvfuser import FusionDefinition, DataType

input_size = [64, 128, 1024]
dtype = torch.float32
device = "cuda"
inputs = [
    torch.randn(*input_size, device=device, requires_grad=True),
    torch.nn.Parameter(torch.randn(input_size[2], dtype=dtype, device=device)),
    torch.nn.Parameter(torch.randn(input_size[2], dtype=dtype, device=device)),
]


def nvfuser_fusion(
    fd: FusionDefinition,
    normalization_axis: int,
    norm_size: int,
    input_shape: List[int],
    eps: float,
    keepDim: bool,
) -> None:
    inputs = fd.define_tensor(
        symbolic_sizes=[-1, -1, -1],
        contiguous=[True, True, True],
        dtype=DataType.Float,
    )
    weights = fd.define_tensor(
        symbolic_sizes=[-1], contiguous=[True], dtype=DataType.Float
    )
    bias = fd.define_tensor(
        symbolic_sizes=[-1], contiguous=[True], dtype=DataType.Float
    )
    sum0 = fd.ops.sum(inputs, axes=[normalization_axis], keepdim=keepDim)
    norm_const = fd.define_constant(norm_size)
    mean = fd.ops.div(sum0, norm_const)
    diff = fd.ops.sub(inputs, mean)
    diff_sq = fd.ops.mul(diff, diff)
    sum1 = fd.ops.sum(diff_sq, axes=[normalization_axis], keepdim=keepDim)
    var = fd.ops.div(sum1, norm_const)
    eps_const = fd.define_constant(eps)
    var_eps = fd.ops.add(var, eps_const)
    invstd = fd.ops.rsqrt(var_eps)
    pre_scale_bias = fd.ops.mul(diff, invstd)
    weights_bcast = fd.ops.broadcast_in_dim(
        weights, output_shape=input_shape, broadcast_dims=[2]
    )
    scale = fd.ops.mul(pre_scale_bias, weights_bcast)
    bias_bcast = fd.ops.broadcast_in_dim(
        bias, output_shape=input_shape, broadcast_dims=[2]
    )
    out = fd.ops.add(scale, bias_bcast)
    fd.add_output(out)
    fd.add_output(mean)
    fd.add_output(invstd)


def nvfuser_fusion_var_mean(
    fd: FusionDefinition,
    normalization_axis: int,
    norm_size: int,
    input_shape: List[int],
    eps: float,
    keepDim: bool,
) -> None:
    inputs = fd.define_tensor(
        symbolic_sizes=[-1, -1, -1],
        contiguous=[True, True, True],
        dtype=DataType.Float,
    )
    weights = fd.define_tensor(
        symbolic_sizes=[-1], contiguous=[True], dtype=DataType.Float
    )
    bias = fd.define_tensor(
        symbolic_sizes=[-1], contiguous=[True], dtype=DataType.Float
    )
    var, mean = fd.ops.var_mean(
        inputs, axes=[normalization_axis], correction=0, keepdim=keepDim
    )
    eps_const = fd.define_constant(eps)
    var_eps = fd.ops.add(var, eps_const)
    invstd = fd.ops.rsqrt(var_eps)
    diff = fd.ops.sub(inputs, mean)
    pre_scale_bias = fd.ops.mul(diff, invstd)
    weights_bcast = fd.ops.broadcast_in_dim(
        weights, output_shape=input_shape, broadcast_dims=[2]
    )
    scale = fd.ops.mul(pre_scale_bias, weights_bcast)
    bias_bcast = fd.ops.broadcast_in_dim(
        bias, output_shape=input_shape, broadcast_dims=[2]
    )
    out = fd.ops.add(scale, bias_bcast)
    fd.add_output(out)
    fd.add_output(mean)
    fd.add_output(invstd)


fusion_func_1 = partial(
    nvfuser_fusion,
    normalization_axis=2,
    norm_size=inputs[0].size()[2],
    input_shape=inputs[0].size(),
    eps=1e-12,
    keepDim=True,
)

with FusionDefinition() as fd:
    fusion_func_1(fd)

fd.execute(inputs)
