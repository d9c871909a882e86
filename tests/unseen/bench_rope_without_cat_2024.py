# Source: NVIDIA/Fuser, benchmarks/python/test_rope.py at 61394f8b37 (2024-03-15), rope_without_cat_fusion
#   and test_rope_benchmark.
# Computes: Llama RoPE without cat on bf16 q [32, 4096, 32, 128]: reshape to pairs, permute, broadcast
#   against a [S, 2, F/2, 2] cos/sin matrix built with torch.stack, sum over the last dim, reshape back.
# Adapted: the body of test_rope_benchmark for use_cat=False up to its validation run, at the benchmark's
#   own sizes; clear_cuda_cache, the reference computation and run_benchmark are left out, and the other
#   fusion function of the file is not copied.
import torch
from nvfuser import FusionDefinition, DataType


# Idea from @nikitaved: we split and concatenate the embeddings instead of `q`.
# The embeddings are constant that can be precomputed. So we pay the overhead
# of split and concatenation only once. The actual forward pass is merely
# elementwise+reduction surrounded by some meta ops.
def rope_without_cat_fusion(
    fd: FusionDefinition,
    batch_size: int,  # B
    seq_len: int,  # S
    num_heads: int,  # H
    features_per_head: int,  # F
) -> None:
    q = fd.define_tensor(
        shape=[batch_size, seq_len, num_heads, features_per_head],
        dtype=DataType.BFloat16,
    )
    # `cos_sin_matrix` is essentially a batch (of size S*F/2) of 2x2 matrices
    # laid out in a special way to keep computation simple.
    #
    # Using the notations in Figure 1 in https://arxiv.org/pdf/2104.09864.pdf,
    # cos_sin_matrix[0] contains the following:
    #
    #   cos(θ_1),   -sin(θ1)
    #   cos(θ_2),   -sin(θ2)
    #   ...
    #   cos(θ_F/2), -sin(θ_F/2)
    #   ------------------------
    #   sin(θ_1),   cos(θ_1)
    #   sin(θ_2),   cos(θ_2)
    #   ...
    #   sin(θ_F/2), cos(θ_F/2)
    #
    # cos_sin_matrix[i] is similar but each θ is multiplied by `i+1`.
    cos_sin_matrix = fd.define_tensor(
        shape=[seq_len, 2, features_per_head // 2, 2],
        dtype=DataType.BFloat16,
    )

    q = fd.ops.reshape(
        q, new_shape=[batch_size, seq_len, num_heads, 2, features_per_head // 2]
    )
    q = fd.ops.permute(q, dims=[0, 2, 1, 4, 3])
    q = fd.ops.broadcast_in_dim(
        q,
        shape=[batch_size, num_heads, seq_len, 1, features_per_head // 2, 2],
        broadcast_dims=[0, 1, 2, 4, 5],
    )

    cos_sin_matrix = fd.ops.broadcast_in_dim(
        cos_sin_matrix,
        shape=[batch_size, num_heads, seq_len, 2, features_per_head // 2, 2],
        broadcast_dims=[2, 3, 4, 5],
    )

    out = fd.ops.sum(q * cos_sin_matrix, [-1])
    out = fd.ops.cast(out, DataType.BFloat16)
    out = fd.ops.reshape(
        out, new_shape=[batch_size, num_heads, seq_len, features_per_head]
    )
    fd.add_output(out)


batch_size = 32
seq_len = 4096
num_heads = 32
features_per_head = 128

# torch.manual_seed(0)
q = torch.randn(
    batch_size,
    seq_len,
    num_heads,
    features_per_head,
    dtype=torch.bfloat16,
    device="cuda:0",
)
freqs = torch.randn(
    seq_len, features_per_head // 2, dtype=torch.bfloat16, device="cuda:0"
)
cos = freqs.cos()
sin = freqs.sin()

with FusionDefinition() as fd:
    rope_without_cat_fusion(fd, batch_size, seq_len, num_heads, features_per_head)

# [S, F/2, 2]
cos_and_minus_sin = torch.stack([cos, -sin], dim=-1)
# [S, F/2, 2]
sin_and_cos = torch.stack([sin, cos], dim=-1)
# [S, 2, F/2, 2]
cos_sin_matrix = torch.stack([cos_and_minus_sin, sin_and_cos], dim=1)
inputs = [q, cos_sin_matrix]

nvf_out = fd.execute(inputs)
