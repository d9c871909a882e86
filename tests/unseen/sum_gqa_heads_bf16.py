# Source: NVIDIA/Fuser, tests/python/test_normalization.py at fe9addc912 (2026-01-27), test_issue2702.
# Computes: reshape [1, 32, 8192, 128] bf16 to [1, 8, 4, 8192, 128], cast, sum over dims 0 and 2, cast
#   back.
# Adapted: none: the test's statements as written, its eager checks left out.
import torch
from nvfuser import FusionDefinition, DataType


def create_fusion(fd: FusionDefinition) -> None:
    T4 = fd.define_tensor(
        shape=[1, -1, -1, -1],
        contiguity=[None, True, True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T75 = fd.ops.reshape(T4, new_shape=[1, 8, 4, 8192, 128])
    T90 = fd.ops.cast(T75, dtype=DataType.Float)
    T91 = fd.ops.sum(T90, dims=[0, 2], keepdim=False, dtype=DataType.Null)
    T92 = fd.ops.cast(T91, dtype=DataType.BFloat16)
    fd.add_output(T92)


with FusionDefinition() as fd:
    create_fusion(fd)

ins = [torch.randn((1, 32, 8192, 128), dtype=torch.bfloat16, device="cuda:0")]
outs = fd.execute(ins)
