# QKV split: nanoGPT's attention input [2,16,384] fp32 cut into q, k, v as [2,4,16,32] (3 slice+reshape+permute chains)
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(2, 16, 384, device='cuda'),
]

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.from_pytorch(inputs[0])
    T0_slice1 = fd.ops.slice(T0, [0, 0, 0], [2, 16, 128], [1, 1, 1])
    T0_slice2 = fd.ops.slice(T0, [0, 0, 128], [2, 16, 256], [1, 1, 1])
    T0_slice3 = fd.ops.slice(T0, [0, 0, 256], [2, 16, 384], [1, 1, 1])
    T1_slice1 = fd.ops.reshape(T0_slice1, [2, 16, 128], [2, 16, 4, 32])
    T1_slice2 = fd.ops.reshape(T0_slice2, [2, 16, 128], [2, 16, 4, 32])
    T1_slice3 = fd.ops.reshape(T0_slice3, [2, 16, 128], [2, 16, 4, 32])
    T2_slice1 = fd.ops.permute(T1_slice1, [0, 2, 1, 3])
    T2_slice2 = fd.ops.permute(T1_slice2, [0, 2, 1, 3])
    T2_slice3 = fd.ops.permute(T1_slice3, [0, 2, 1, 3])
    fd.add_output(T2_slice1)
    fd.add_output(T2_slice2)
    fd.add_output(T2_slice3)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

fd.execute(inputs)
