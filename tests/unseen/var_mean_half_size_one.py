# var_mean over a size-1 broadcast dim of a Half tensor, cast back to Half.
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Half, is_cpu=False)
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5, T6 = fd.ops.var_mean(T4, dims=[1], correction=0, keepdim=False)
    T7 = fd.ops.cast(T5, dtype=DataType.Half)
    T8 = fd.ops.cast(T6, dtype=DataType.Half)
    fd.add_output(T7)
    fd.add_output(T8)

inputs = [torch.randn(2, 1, 2, dtype=torch.float16, device='cuda:0')]
fd.execute(inputs)
