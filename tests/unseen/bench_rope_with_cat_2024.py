# Source: NVIDIA/Fuser, benchmarks/python/test_rope.py at 61394f8b37 (2024-03-15), rope_with_cat_fusion
#   and test_rope_benchmark.
# Computes: Llama RoPE the Hugging Face way on bf16 q [32, 4096, 32, 128]: permute, halves by slice,
#   negate in float, cat, q * cos + rotated * sin (Python operators), cast; cos/sin built with torch.cat
#   in the script.
# Adapted: the body of test_rope_benchmark for use_cat=True up to its validation run, at the benchmark's
#   own sizes; clear_cuda_cache, the reference computation and run_benchmark are left out, and the other
#   fusion function of the file is not copied.
import torch
from nvfuser import FusionDefinition, DataType


# Mimic the Hugging Face implementation:
# https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/modeling_llama.py#L216
def rope_with_cat_fusion(
    fd: FusionDefinition,
    batch_size: int,
    seq_len: int,
    num_heads: int,
    features_per_head: int,
) -> None:
    q = fd.define_tensor(
        shape=[batch_size, seq_len, num_heads, features_per_head],
        dtype=DataType.BFloat16,
    )
    cos = fd.define_tensor(
        shape=[seq_len, features_per_head],
        dtype=DataType.BFloat16,
    )
    sin = fd.define_tensor(
        shape=[seq_len, features_per_head],
        dtype=DataType.BFloat16,
    )

    q = fd.ops.permute(q, dims=[0, 2, 1, 3])
    q_real = fd.ops.slice(
        q,
        start_indices=[0, 0, 0, 0],
        end_indices=[batch_size, num_heads, seq_len, features_per_head // 2],
        strides=[1, 1, 1, 1],
    )
    q_image = fd.ops.slice(
        q,
        start_indices=[0, 0, 0, features_per_head // 2],
        end_indices=[batch_size, num_heads, seq_len, features_per_head],
        strides=[1, 1, 1, 1],
    )

    # nvFuser has problems generating negation for bfloat.
    q_image = fd.ops.cast(q_image, dtype=DataType.Float)
    q_image = -q_image
    q_image = fd.ops.cast(q_image, dtype=DataType.BFloat16)

    q_rotated = fd.ops.cat([q_image, q_real], dim=-1)

    cos = fd.ops.broadcast_in_dim(
        cos, shape=[1, 1, seq_len, features_per_head], broadcast_dims=[2, 3]
    )
    sin = fd.ops.broadcast_in_dim(
        sin, shape=[1, 1, seq_len, features_per_head], broadcast_dims=[2, 3]
    )

    out = q * cos + q_rotated * sin
    out = fd.ops.cast(out, DataType.BFloat16)
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
    rope_with_cat_fusion(fd, batch_size, seq_len, num_heads, features_per_head)

inputs = [q, torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)]

nvf_out = fd.execute(inputs)
