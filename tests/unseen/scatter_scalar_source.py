# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 57c2a1515c (2025-08-18),
#   TestNvFuserFrontend.test_scatter_scalar_src.
# Computes: scatter of the scalar 1.5 at topk indices along dim 0 of a [128, 1024] input.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

bsz = 128
hidden = 1024
scatter_size = 64
scatter_dim = 0
x = torch.randn([bsz, hidden], device="cuda")
_, ind = torch.topk(x, k=scatter_size, dim=scatter_dim)
src = 1.5
inputs = [x, ind, src]


def fusion_func(fd: FusionDefinition):
    T0 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T1 = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=DataType.Int,
        is_cpu=False,
        stride_order=[1, 0],
    )
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    T3 = fd.ops.scatter(T0, T1, S2, scatter_dim)
    fd.add_output(T3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
