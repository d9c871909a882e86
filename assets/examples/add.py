# Add: the smallest fusion, two [32,64] fp32 tensors added with Python's + operator (nvfuser_direct)
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
    t1 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)
    t2 = t0 + t1
    fd.add_output(t2)

inputs = [
    torch.randn(32, 64, device="cuda"),
    torch.randn(32, 64, device="cuda"),
]
fd.execute(inputs)
