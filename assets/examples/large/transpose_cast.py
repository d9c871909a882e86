# Transpose + cast: [8192,8192] fp32 transposed to [8192,8192] and cast to bf16
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.permute(T0, dims=[1, 0])
    T2 = fd.ops.cast(T1, dtype=DataType.BFloat16)
    fd.add_output(T2)

inputs = [torch.randn(8192, 8192, device="cuda")]
fd.execute(inputs)
