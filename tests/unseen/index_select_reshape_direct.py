# Reshape of an index tensor feeding index_select, sizes given as Int scalars (nvfuser_direct).
import torch
from nvfuser_direct import FusionDefinition, DataType


def nvfuser_fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_scalar(25, dtype=DataType.Int)
    T4 = fd.ops.reshape(T0, new_shape=[S2])
    T5 = fd.ops.index_select(T1, T4, dim=0)
    S6 = fd.define_scalar(5, dtype=DataType.Int)
    S7 = fd.define_scalar(5, dtype=DataType.Int)
    S8 = fd.define_scalar(16, dtype=DataType.Int)
    T10 = fd.ops.reshape(T5, new_shape=[S6, S7, S8])
    fd.add_output(T10)


with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randint(0, 10, (25,), dtype=torch.int64, device='cuda:0').as_strided((5, 5), (5, 1)),
    torch.randn((480,), dtype=torch.float32, device='cuda:0').as_strided((30, 16), (16, 1)),
]
fd.execute(inputs)
