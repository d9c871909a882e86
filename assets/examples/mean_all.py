# Mean of all: [96,160] bf16 reduced to one fp32 scalar (sum over every dim, divided by the count)
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dtype=DataType.Float)
    S3 = fd.define_scalar(96 * 160, dtype=DataType.Double)
    T4 = fd.ops.div(T2, S3)
    fd.add_output(T4)

inputs = [torch.randn(96, 160, dtype=torch.bfloat16, device="cuda")]
fd.execute(inputs)
