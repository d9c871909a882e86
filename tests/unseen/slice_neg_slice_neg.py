# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 74c17c6208 (2024-08-05),
#   TestNvFuserFrontend.test_issue2755.
# Computes: slice, neg, slice, neg of a 1-D input (slices without strides).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(shape=[-1])
    t1 = fd.ops.slice(
        t0,
        start_indices=[0],
        end_indices=[5],
    )
    t2 = fd.ops.neg(t1)
    t3 = fd.ops.slice(
        t2,
        start_indices=[0],
        end_indices=[2],
    )
    t4 = fd.ops.neg(t3)
    fd.add_output(t4)


inputs = [torch.randn((10,), dtype=torch.float32, device="cuda:0")]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
