# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_dynamic_bcast_in_dim.
# Computes: broadcast_in_dim of [1, 10] to the extents (c4, c5) given as Int scalar inputs, plus [5, 10]
#   (nvfuser_direct).
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    tv0 = fd.define_tensor(
        shape=[1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False
    )
    c4 = fd.define_scalar(None, dtype=DataType.Int)
    c5 = fd.define_scalar(None, dtype=DataType.Int)
    tv1 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False
    )
    tv3 = fd.ops.broadcast_in_dim(tv0, (c4, c5), (0, 1))
    tv4 = fd.ops.add(tv3, tv1)
    fd.add_output(tv4)


t0 = torch.randn([1, 10], dtype=torch.float32, device="cuda:0")
c4 = 5
c5 = 10
t1 = torch.randn([5, 10], dtype=torch.float32, device="cuda:0")
inputs = [t0, c4, c5, t1]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
