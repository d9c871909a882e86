# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_promote_to_double.
# Computes: Half + Double promotes to Double, then relu.
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


inputs = [
    torch.randn(2, 4, device="cuda", dtype=torch.float16),
    torch.randn(2, 4, device="cuda", dtype=torch.float64),
]

def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    t2 = fd.ops.add(t0, t1)
    t5 = fd.ops.relu(t2)

    fd.add_output(t5)

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
