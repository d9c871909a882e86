# nvfuser_direct matmul of two bf16 matrices read with from_pytorch.
import torch
from nvfuser_direct import FusionDefinition

inputs = [
    torch.randn(24, 8, device='cuda', dtype=torch.bfloat16),
    torch.randn(8, 16, device='cuda', dtype=torch.bfloat16),
]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.matmul(t0, t1)
    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
