# Source: NVIDIA/Fuser, tests/python/test_alias.py at 08ad4ffaec (2025-09-09),
#   TestAlias.test_squeeze_issue_3192.
# Computes: squeeze [1, 1, 2] to [2] and slice [1:2] (all views).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition


def fusion_func(fd: FusionDefinition):
    inp = fd.define_tensor([1, 1, 2], contiguity=True)
    out = fd.ops.squeeze(inp, [0, 1])
    out = fd.ops.slice(out, [1], [2])
    fd.add_output(out)


in_tensor = torch.randn(1, 1, 2, device="cuda")

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute([in_tensor])
