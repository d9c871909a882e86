# Late-2022 spelling: symbolic_sizes/contiguous, tensor_sizes() scalars, broadcast_in_dim(output_shape=).
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id0(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[False, False, False], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(symbolic_sizes=[-1], contiguous=[False], dtype=DataType.Float, is_cpu=False)
    S2, S3, S4 = fd.ops.tensor_sizes(T0)
    T5 = fd.ops.broadcast_in_dim(T1, output_shape=[S2, S3, S4], broadcast_dims=[2])
    T6 = fd.ops.add(T0, T5)
    fd.add_output(T6)


with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [torch.randn(2, 3, 4, device='cuda'), torch.randn(4, device='cuda')]
fd.execute(inputs)
