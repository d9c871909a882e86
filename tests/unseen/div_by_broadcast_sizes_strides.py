# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_fix_2549.
# Computes: b / broadcast(a) for Double [4, 4] and [4, 1]; tensors defined with sizes=a.shape,
#   strides=a.stride().
# Adapted: none: the test's statements as written, its eager checks left out.
import torch
from nvfuser import FusionDefinition, DataType

a = torch.ones(4, 1, dtype=torch.double, device='cuda')
b = torch.ones(4, 4, dtype=torch.double, device='cuda')


def nvfuser_fusion_id(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(sizes=a.shape, strides=a.stride(), dtype=DataType.Double, is_cpu=False)
    T1 = fd.define_tensor(sizes=b.shape, strides=b.stride(), dtype=DataType.Double, is_cpu=False)
    T2 = fd.ops.broadcast_in_dim(T0, output_shape=[4, 4], broadcast_dims=[0, 1])
    T3 = fd.ops.div(T1, T2)
    fd.add_output(T3)


with FusionDefinition() as fd:
    nvfuser_fusion_id(fd)

out = fd.execute([a, b])
