# Adam step, in place (fp32): torch.optim.Adam step 10 (lr 1e-3) of [67108864] fp32 param, grad and moments, written back with alias_input; 64M values
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id122(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    S4 = fd.define_scalar(0.9, dtype=DataType.Double)
    T5 = fd.ops.mul(T2, S4)
    S6 = fd.define_scalar(0.1, dtype=DataType.Double)
    T7 = fd.ops.mul(T1, S6)
    T8 = fd.ops.add(T5, T7)
    S9 = fd.define_scalar(0.999, dtype=DataType.Double)
    T10 = fd.ops.mul(T3, S9)
    T11 = fd.ops.mul(T1, T1)
    S12 = fd.define_scalar(0.001, dtype=DataType.Double)
    T13 = fd.ops.mul(T11, S12)
    T14 = fd.ops.add(T10, T13)
    T15 = fd.ops.sqrt(T14)
    S16 = fd.define_scalar(0.09977534660552057, dtype=DataType.Double)
    T17 = fd.ops.div(T15, S16)
    S18 = fd.define_scalar(1e-08, dtype=DataType.Double)
    T19 = fd.ops.add(T17, S18)
    T20 = fd.ops.div(T8, T19)
    S21 = fd.define_scalar(0.0015353399327876296, dtype=DataType.Double)
    T22 = fd.ops.mul(T20, S21)
    T23 = fd.ops.sub(T0, T22)
    fd.add_output(T23, alias_input=T0)
    fd.add_output(T8, alias_input=T2)
    fd.add_output(T14, alias_input=T3)

with FusionDefinition() as fd:
    nvfuser_fusion_id122(fd)

inputs = [
    torch.testing.make_tensor((67108864,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((67108864,), dtype=torch.float32, device='cuda:0', low=-0.01, high=0.01),
    torch.testing.make_tensor((67108864,), dtype=torch.float32, device='cuda:0', low=-0.01, high=0.01),
    torch.testing.make_tensor((67108864,), dtype=torch.float32, device='cuda:0', low=0.0, high=0.0001),
]
fd.execute(inputs)
