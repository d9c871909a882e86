# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_full_with_cpu_inputs.
# Computes: a 0-d CPU float tensor times fd.ops.full([2, 2], 3.0).
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


inputs = [
    torch.tensor(2.0, device="cpu", dtype=torch.float),
]

def fusion_func(fd: FusionDefinition):
    tv0 = fd.from_pytorch(inputs[0])
    s0 = fd.define_scalar(3.0)
    tv1 = fd.ops.full(shape=[2, 2], fill_value=s0, dtype=DataType.Float)
    t2 = fd.ops.mul(tv0, tv1)  # CPU scalar * CUDA tensor = CUDA tensor
    fd.add_output(t2)

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
