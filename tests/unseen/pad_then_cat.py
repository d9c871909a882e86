# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at f219f33711 (2024-10-23),
#   TestNvFuserFrontend.test_pad_prior_cat.
# Computes: pads two inputs to 10 rows, then cats them along dim 1.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.randn(2, 4, device="cuda"),
    torch.randn(3, 3, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    # pad tensors t0 and t1, so their first dimension are size 10.
    t0_pad = fd.ops.pad(t0, [0, 0, 0, 8])
    t1_pad = fd.ops.pad(t1, [0, 0, 0, 7])

    t3 = fd.ops.cat([t0_pad, t1_pad], 1)
    fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
