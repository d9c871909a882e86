# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_dynamic_full.
# Computes: full((c4, c5), c6) from three scalar inputs, plus a [5, 10] input (nvfuser_direct).
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    c4 = fd.define_scalar(None, dtype=DataType.Int)
    c5 = fd.define_scalar(None, dtype=DataType.Int)
    c6 = fd.define_scalar(None, dtype=DataType.Float)
    tv1 = fd.define_tensor(
        shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False
    )
    tv3 = fd.ops.full((c4, c5), c6, DataType.Float)
    tv4 = fd.ops.add(tv3, tv1)
    fd.add_output(tv4)


c4 = 5
c5 = 10
c6 = 2.5
t1 = torch.randn([5, 10], dtype=torch.float32, device="cuda:0")
inputs = [c4, c5, c6, t1]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
