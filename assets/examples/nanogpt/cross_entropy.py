# Cross-entropy (fp32): mean loss of [2048,50304] fp32 logits against int64 targets, via log-softmax and take_along_axis
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.11.0
# cuda version: 12.8
# nvfuser version: 0.2.30
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id11(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.ops.max(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.broadcast_in_dim(T2, shape=[2048, 50304], broadcast_dims=[0])
    T7 = fd.ops.sub(T0, T6)
    T8 = fd.ops.exp(T7)
    T9 = fd.ops.sum(T8, dims=[1], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.log(T9)
    T14 = fd.ops.broadcast_in_dim(T10, shape=[2048, 50304], broadcast_dims=[0])
    T15 = fd.ops.sub(T7, T14)
    T19 = fd.ops.broadcast_in_dim(T1, shape=[2048, 1], broadcast_dims=[0])
    T20 = fd.ops.take_along_axis(T15, T19, dim=1)
    T21 = fd.ops.neg(T20)
    T22 = fd.ops.sum(T21, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    S23 = fd.define_scalar(2048.0, dtype=DataType.Double)
    T24 = fd.ops.div(T22, S23)
    fd.add_output(T24)

with FusionDefinition() as fd:
    nvfuser_fusion_id11(fd)

inputs = [
    torch.testing.make_tensor((2048, 50304), dtype=torch.float32, device='cuda:0'),
    torch.randint(0, 50304, (2048,), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
