# Full mean (fp32): mean of all 67108864 values of a [16384,4096] fp32 tensor; Llama-2 7B hidden 4096
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id105(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.sum(T0, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    S2 = fd.define_scalar(67108864.0, dtype=DataType.Double)
    T3 = fd.ops.div(T1, S2)
    fd.add_output(T3)

with FusionDefinition() as fd:
    nvfuser_fusion_id105(fd)

inputs = [
    torch.testing.make_tensor((16384, 4096), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
