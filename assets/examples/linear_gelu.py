# Linear + GELU: x [32,64] @ W[128,64]^T + b through torch's linear, then exact GELU (erf) in a kernel
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id25(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.ops.linear(T0, T1, T2)
    S4 = fd.define_scalar(0.707107, dtype=DataType.Double)
    T5 = fd.ops.mul(T3, S4)
    T6 = fd.ops.erf(T5)
    S7 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T8 = fd.ops.add(S7, T6)
    S9 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T10 = fd.ops.mul(S9, T3)
    T11 = fd.ops.mul(T10, T8)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id25(fd)

inputs = [
    torch.testing.make_tensor((32, 64), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((128, 64), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((128,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
