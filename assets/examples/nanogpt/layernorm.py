# LayerNorm (fp32): rows of [2048,1024] normalized with mean and variance from sums, then scaled and shifted
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    bias = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    inv_n = fd.define_scalar(1.0 / 1024, dtype=DataType.Double)
    eps = fd.define_scalar(1e-5, dtype=DataType.Double)
    mean = fd.ops.sum(x, dims=[1], keepdim=False) * inv_n
    centered = x - fd.ops.broadcast_in_dim(mean, shape=[2048, 1024], broadcast_dims=[0])
    var = fd.ops.sum(centered * centered, dims=[1], keepdim=False) * inv_n
    rstd = fd.ops.rsqrt(var + eps)
    normed = centered * fd.ops.broadcast_in_dim(rstd, shape=[2048, 1024], broadcast_dims=[0])
    w = fd.ops.broadcast_in_dim(weight, shape=[2048, 1024], broadcast_dims=[1])
    b = fd.ops.broadcast_in_dim(bias, shape=[2048, 1024], broadcast_dims=[1])
    fd.add_output(normed * w + b)

inputs = [
    torch.randn(2048, 1024, device="cuda"),
    torch.randn(1024, device="cuda"),
    torch.randn(1024, device="cuda"),
]
fd.execute(inputs)
