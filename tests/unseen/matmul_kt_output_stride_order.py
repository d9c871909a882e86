# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09), TestMatmul.test_matmul_stride.
# Computes: q @ k^T for fp16 [4, 8, 16, 8] with the output in stride order (0, 2, 3, 1).
# Adapted: the test loops over every permutation of range(4); here perm = (0, 2, 3, 1), and its eager
#   check is left out.
import torch
from nvfuser import FusionDefinition

n, h, l, s, e = 4, 8, 16, 16, 8
inputs = [
    torch.randn(
        n, h, l, e, device="cuda", dtype=torch.float16, requires_grad=True
    ),
    torch.randn(
        n, h, s, e, device="cuda", dtype=torch.float16, requires_grad=True
    ),
]
perm = (0, 2, 3, 1)


def fusion_func(fd: FusionDefinition) -> None:
    q = fd.from_pytorch(inputs[0])
    k = fd.from_pytorch(inputs[1])
    k_t = fd.ops.permute(k, [0, 1, 3, 2])
    out = fd.ops.matmul(q, k_t)
    fd.add_output(out, stride_order=perm)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
