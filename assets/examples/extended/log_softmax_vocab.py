# Vocabulary log-softmax (bf16): log-softmax over the rows of [12,131] bf16 logits, in fp32; sized down from Llama-3 vocabulary 128256
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id108(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.max(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.broadcast_in_dim(T2, shape=[12, 131], broadcast_dims=[0])
    T7 = fd.ops.sub(T1, T6)
    T8 = fd.ops.exp(T7)
    T9 = fd.ops.sum(T8, dims=[1], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.log(T9)
    T14 = fd.ops.broadcast_in_dim(T10, shape=[12, 131], broadcast_dims=[0])
    T15 = fd.ops.sub(T7, T14)
    T16 = fd.ops.cast(T15, dtype=DataType.BFloat16)
    fd.add_output(T16)

with FusionDefinition() as fd:
    nvfuser_fusion_id108(fd)

inputs = [
    torch.testing.make_tensor((12, 131), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
