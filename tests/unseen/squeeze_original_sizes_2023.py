# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_squeeze.
# Computes: squeeze with the early-2023 (tensor, original sizes, dims) signature, a sum and two
#   multiplies; tensors defined by sizes= and strides=.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

t0_sizes = [4]
t1_sizes = [1, 4, 1]
t2_sizes = [2, 1, 4]
inputs = [
    torch.randn(*t0_sizes, device="cuda"),
    torch.randn(*t1_sizes, device="cuda"),
    torch.randn(*t2_sizes, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.define_tensor(symbolic_sizes=[-1], contiguous=[True])
    t1 = fd.define_tensor(sizes=t1_sizes, strides=[4, 1, 1])
    t2 = fd.define_tensor(sizes=t2_sizes, strides=[4, 4, 1])
    t3 = fd.ops.squeeze(t1, t1_sizes, [0, -1])
    t4 = fd.ops.squeeze(
        t2,
        t2_sizes,
        [
            -2,
        ],
    )
    t5 = fd.ops.sum(t4, [0])
    t6 = fd.ops.mul(t0, t3)
    t7 = fd.ops.mul(t6, t5)
    fd.add_output(t7)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
