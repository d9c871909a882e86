# RoPE on q and k (bf16): rotary embedding of q, k [2,4,16,32] with cos, sin [16,32] (rotate-half form)
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(2, 4, 16, 32, dtype=torch.bfloat16, device="cuda"),
    torch.randn(2, 4, 16, 32, dtype=torch.bfloat16, device="cuda"),
    torch.randn(16, 32, dtype=torch.bfloat16, device="cuda"),
    torch.randn(16, 32, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    q = fd.from_pytorch(inputs[0])
    k = fd.from_pytorch(inputs[1])
    cos = fd.from_pytorch(inputs[2])
    sin = fd.from_pytorch(inputs[3])
    cos_b = fd.ops.broadcast_in_dim(fd.ops.cast(cos, DataType.Float), shape=[2, 4, 16, 32], broadcast_dims=[2, 3])
    sin_b = fd.ops.broadcast_in_dim(fd.ops.cast(sin, DataType.Float), shape=[2, 4, 16, 32], broadcast_dims=[2, 3])

    qf = fd.ops.cast(q, DataType.Float)
    q1 = fd.ops.slice(qf, start_indices=[0, 0, 0, 0], end_indices=[2, 4, 16, 16])
    q2 = fd.ops.slice(qf, start_indices=[0, 0, 0, 16], end_indices=[2, 4, 16, 32])
    q_rotated = fd.ops.cat([-q2, q1], dim=-1)
    fd.add_output(fd.ops.cast(qf * cos_b + q_rotated * sin_b, DataType.BFloat16))

    kf = fd.ops.cast(k, DataType.Float)
    k1 = fd.ops.slice(kf, start_indices=[0, 0, 0, 0], end_indices=[2, 4, 16, 16])
    k2 = fd.ops.slice(kf, start_indices=[0, 0, 0, 16], end_indices=[2, 4, 16, 32])
    k_rotated = fd.ops.cat([-k2, k1], dim=-1)
    fd.add_output(fd.ops.cast(kf * cos_b + k_rotated * sin_b, DataType.BFloat16))

fd.execute(inputs)
