# GELU (erf, direct): exact GELU of [64,128] fp32 with Python number literals as operands (nvfuser_direct)
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
    y = x * 0.5 * (fd.ops.erf(x * 0.7071067811865476) + 1.0)
    fd.add_output(y)

inputs = [torch.randn(64, 128, device="cuda")]
fd.execute(inputs)
