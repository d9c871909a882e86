# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 8e1020796a (2023-03-21),
#   TestNvFuserFrontend.test_nanogpt_split_mha_linears.
# Computes: splits a [16, 128, 3072] QKV activation into q, k, v with slices, the 2023 reshape(x,
#   original, new) and permutes.
# Adapted: the test runs nvfuser_fusion_0 and nvfuser_fusion_1 in a loop; here nvfuser_fusion_0 (the other
#   stays defined, unused); the eager references torch_def_0/1 are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(16, 128, 3072, device='cuda'),
]


def nvfuser_fusion_0(fd : FusionDefinition) -> None :
    T0 = fd.from_pytorch(inputs[0])
    T0_slice1 = fd.ops.slice(T0, [0, 0, 0], [16, 128, 1024], [1, 1, 1])
    T0_slice2 = fd.ops.slice(T0, [0, 0, 1024], [16, 128, 2048], [1, 1, 1])
    T0_slice3 = fd.ops.slice(T0, [0, 0, 2048], [16, 128, 3072], [1, 1, 1])
    T1_slice1 = fd.ops.reshape(T0_slice1, [16, 128, 1024], [16, 128, 16, 64])
    T1_slice2 = fd.ops.reshape(T0_slice2, [16, 128, 1024], [16, 128, 16, 64])
    T1_slice3 = fd.ops.reshape(T0_slice3, [16, 128, 1024], [16, 128, 16, 64])
    T2_slice1 = fd.ops.permute(T1_slice1, [0, 2, 1, 3])
    T2_slice2 = fd.ops.permute(T1_slice2, [0, 2, 1, 3])
    T2_slice3 = fd.ops.permute(T1_slice3, [0, 2, 1, 3])
    fd.add_output(T2_slice1)
    fd.add_output(T2_slice2)
    fd.add_output(T2_slice3)


def nvfuser_fusion_1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.slice(T0, start_indices=[0, 0, 0], end_indices=[16, 128, 1024], strides=[1, 1, 1])
    T2 = fd.ops.slice(T0, start_indices=[0, 0, 1024], end_indices=[16, 128, 2048], strides=[1, 1, 1])
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 2048], end_indices=[16, 128, 3072], strides=[1, 1, 1])
    fd.add_output(T1)
    fd.add_output(T2)
    fd.add_output(T3)


with FusionDefinition() as fd:
    nvfuser_fusion_0(fd)

fd.execute(inputs)
