# Early-2023 forms: reshape(x, original_shape, new_shape) and squeeze(x, original_shape, dims).
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id0(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1, 1], contiguity=[True, True, None], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(symbolic_sizes=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.squeeze(T0, [4, 6, 1], [2])
    T3 = fd.ops.reshape(T2, original_shape=[4, 6], new_shape=[2, 12])
    T4 = fd.ops.reshape(T1, [24], [2, 12])
    T5 = fd.ops.add(T3, T4)
    S6 = fd.define_constant(2.0)
    T7 = fd.ops.mul(T5, S6)
    T8 = fd.ops.sum(T7, axes=[1], keepdim=False)
    fd.add_output(T7)
    fd.add_output(T8)


with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [torch.randn(4, 6, 1, device='cuda'), torch.randn(24, device='cuda')]
fd.execute(inputs)
