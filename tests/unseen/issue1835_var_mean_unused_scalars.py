# Source: NVIDIA/Fuser, issue #1835 "nvfuser var_mean crashes" (tfogal, 2024-02-26), the repro in the
#   description: https://github.com/NVIDIA/Fuser/issues/1835
# Computes: var_mean (correction 1) over dim 1 of a half [8, 1, 6] input, cast back to Half; three scalar
#   inputs (two Int, one Bool) that nothing uses.
# Adapted: none; the repro as posted.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Half, is_cpu=False, stride_order=[2, 1, 0])
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Bool)
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5, T6 = fd.ops.var_mean(T4, dims=[1], correction=1, keepdim=False)
    T7 = fd.ops.cast(T5, dtype=DataType.Half)
    T8 = fd.ops.cast(T6, dtype=DataType.Half)
    fd.add_output(T7)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((48,), dtype=torch.float16, device='cuda:0').as_strided((8, 1, 6), (6, 6, 1)),
    1,
    1,
    False,
]
fd.execute(inputs)
