# Source: pytorch/pytorch, test/test_nvfuser_frontend.py at 0b7e314eaf (2022, the nvfuser._C Fusion API),
#   TestNvFuserFrontend.test_prim_rms_norm_fwd.
# Computes: RMS norm over the last dim of [64, 128, 1024] with a weight: sum of squares (axes=), divide by
#   a define_constant norm size, rsqrt, broadcast_in_dim(output_shape=); the helper takes five keyword
#   parameters bound with functools.partial, two of them torch sizes of the input.
# Adapted: the eager reference primitive_definition is left out; the test's exec_nvfuser(fusion_func,
#   inputs) is written as the harness of that file writes it (fs = Fusion(); with FusionDefinition(fs) as fd:
#   fusion_func(fd); fs.execute(inputs)).
from functools import partial
from typing import List

import torch

from nvfuser._C import Fusion, FusionCache, FusionDefinition, DataType

input_size = [64, 128, 1024]
dtype = torch.float32
device = 'cuda'
inputs = [
    torch.randn(*input_size, device=device, requires_grad=True),
    torch.nn.Parameter(torch.randn(input_size[2], dtype=dtype, device=device)),
]

def nvfuser_fusion(
    fd: FusionDefinition,
    normalization_axis: int,
    norm_size: int,
    input_shape: List[int],
    eps: float,
    keepDim: bool
) -> None :
    inputs = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[True, True, True], dtype=DataType.Float)
    weights = fd.define_tensor(symbolic_sizes=[-1], contiguous=[True], dtype=DataType.Float)
    inputs_sq = fd.ops.mul(inputs, inputs)
    sum0 = fd.ops.sum(inputs_sq, axes=[normalization_axis], keepdim=keepDim)
    norm_const = fd.define_constant(norm_size)
    var = fd.ops.div(sum0, norm_const)
    eps_const = fd.define_constant(eps)
    var_eps = fd.ops.add(var, eps_const)
    invstd = fd.ops.rsqrt(var_eps)
    pre_scale = fd.ops.mul(inputs, invstd)
    weights_bcast = fd.ops.broadcast_in_dim(weights, output_shape=input_shape, broadcast_dims=[2])
    out = fd.ops.mul(pre_scale, weights_bcast)
    fd.add_output(out)
    fd.add_output(invstd)

fusion_func = partial(nvfuser_fusion,
                      normalization_axis=2,
                      norm_size=inputs[0].size()[2],
                      input_shape=inputs[0].size(),
                      eps=1e-12,
                      keepDim=True)

fs = Fusion()
with FusionDefinition(fs) as fd:
    fusion_func(fd)
out = fs.execute(inputs)
