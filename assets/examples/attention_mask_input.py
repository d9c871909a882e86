# Attention softmax with a mask input (bf16): scores [2,4,32,32], causal mask given as a bool input made with .triu
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(2, 4, 32, 32, dtype=torch.bfloat16, device="cuda"),
    torch.ones(32, 32, dtype=torch.bool, device="cuda").triu(1),
]

with FusionDefinition() as fd:
    scores = fd.from_pytorch(inputs[0])
    mask = fd.from_pytorch(inputs[1])
    scale = fd.define_scalar(0.125, dtype=DataType.Double)
    neg_inf = fd.define_scalar(float("-inf"), dtype=DataType.Double)
    x = fd.ops.cast(scores, dtype=DataType.Float) * scale
    x = fd.ops.where(fd.ops.broadcast_in_dim(mask, shape=[2, 4, 32, 32], broadcast_dims=[2, 3]), neg_inf, x)
    x_max = fd.ops.broadcast_in_dim(fd.ops.max(x, dims=[-1]), shape=[2, 4, 32, 32], broadcast_dims=[0, 1, 2])
    e = fd.ops.exp(x - x_max)
    total = fd.ops.broadcast_in_dim(fd.ops.sum(e, dims=[-1]), shape=[2, 4, 32, 32], broadcast_dims=[0, 1, 2])
    fd.add_output(fd.ops.cast(e / total, dtype=DataType.BFloat16))

fd.execute(inputs)
