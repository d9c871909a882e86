# Source: NVIDIA/Fuser, tests/python/test_define.py at 08ad4ffaec (2025-09-09),
#   TestDefine.test_contiguity_with_stride_order.
# Computes: x + x for a [1, 2] input declared with contiguity=True (one bool) and stride_order=[0, 1].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition


def fusion_func(fd: FusionDefinition):
    inp = fd.define_tensor([1, 2], contiguity=True, stride_order=[0, 1])
    out = fd.ops.add(inp, inp)
    fd.add_output(out)


in_tensor = torch.randn(1, 2, device="cuda")

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute([in_tensor])
