# Cross-entropy, 32K vocabulary (bf16): mean loss of [4096,32000] bf16 logits against int64 targets (log-softmax, take_along_axis); Llama-2 vocabulary 32000
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id109(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.broadcast_in_dim(T3, shape=[4096, 32000], broadcast_dims=[0])
    T8 = fd.ops.sub(T2, T7)
    T9 = fd.ops.exp(T8)
    T10 = fd.ops.sum(T9, dims=[1], keepdim=False, dtype=DataType.Null)
    T11 = fd.ops.log(T10)
    T15 = fd.ops.broadcast_in_dim(T11, shape=[4096, 32000], broadcast_dims=[0])
    T16 = fd.ops.sub(T8, T15)
    T20 = fd.ops.broadcast_in_dim(T1, shape=[4096, 1], broadcast_dims=[0])
    T21 = fd.ops.take_along_axis(T16, T20, dim=1)
    T22 = fd.ops.neg(T21)
    T23 = fd.ops.sum(T22, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    S24 = fd.define_scalar(4096.0, dtype=DataType.Double)
    T25 = fd.ops.div(T23, S24)
    fd.add_output(T25)

with FusionDefinition() as fd:
    nvfuser_fusion_id109(fd)

inputs = [
    torch.testing.make_tensor((4096, 32000), dtype=torch.bfloat16, device='cuda:0'),
    torch.randint(0, 32000, (4096,), dtype=torch.int64, device='cuda:0'),
]
fd.execute(inputs)
