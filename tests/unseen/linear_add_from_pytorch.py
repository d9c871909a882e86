# from_pytorch inputs of bf16, linear without bias, then a residual add.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn((2, 4, 16), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((2, 4, 16), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((16, 16), dtype=torch.bfloat16, device='cuda:0'),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.linear(T0, T2)
    T4 = fd.ops.add(T3, T1)
    fd.add_output(T4)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
