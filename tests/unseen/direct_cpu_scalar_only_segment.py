# Source: NVIDIA/Fuser, tests/python/direct/test_repro.py at 81c4b22fd7 (2026-04-03),
#   test_issue2853.
# Computes: a 0-d CPU tensor plus 3.0 (a CPU-only result, which nvFuser refuses with
#   "KernelExecutor does not support the Fusion provided") and a [3] CUDA tensor plus 3.0.
# Adapted: the test's pytest.raises(...) around fd.execute is left out: hfuse computes both outputs.
import torch
from nvfuser_direct import FusionDefinition, DataType


inputs = [
    torch.tensor(2.0, device="cpu", dtype=torch.float),
    torch.randn(3, device="cuda", dtype=torch.float),
]

def fusion_func(fd: FusionDefinition):
    tv0 = fd.from_pytorch(inputs[0])  # CPU scalar tensor
    tv1 = fd.from_pytorch(inputs[1])  # CUDA input
    s0 = fd.define_scalar(3.0)
    # CPU scalar only segment that should raise an error
    t2 = fd.ops.add(tv0, s0)  # Should be a CPU scalar tensor
    t3 = fd.ops.add(tv1, s0)
    fd.add_output(t2)
    fd.add_output(t3)

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
