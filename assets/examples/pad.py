# Pad: [30,40] fp32 padded by (1,2) columns and (0,3) rows with the constant 0.5
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    S1 = fd.define_scalar(0.5, dtype=DataType.Double)
    T2 = fd.ops.pad(T0, [1, 2, 0, 3], S1)
    fd.add_output(T2)

inputs = [torch.randn(30, 40, device="cuda")]
fd.execute(inputs)
