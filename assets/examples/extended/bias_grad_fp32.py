# Bias gradient (fp32): sum over the tokens of a [128,24] fp32 gradient, a bias grad; sized down from GPT-2 small MLP width 3072
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id102(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T1)

with FusionDefinition() as fd:
    nvfuser_fusion_id102(fd)

inputs = [
    torch.testing.make_tensor((128, 24), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
