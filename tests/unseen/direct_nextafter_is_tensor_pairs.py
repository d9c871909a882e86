# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_nextafter.
# Computes: nextafter of every pair of a float32 tensor, a float64 tensor, a Float and a Double scalar
#   (itertools.product); the tensor results (t.is_tensor()) are outputs.
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType
import itertools


inputs = [
    # torch.nextafter is only defined for float{32,64} tensor inputs
    torch.testing.make_tensor(4, device="cuda", dtype=torch.float32),
    torch.testing.make_tensor(4, device="cuda", dtype=torch.float64),
]

def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    s0 = fd.define_scalar(1.0, dtype=DataType.Float)
    s1 = fd.define_scalar(-1.0, dtype=DataType.Double)

    for a, b in itertools.product(
        [t0, t1, s0, s1],
        [t0, t1, s0, s1],
    ):
        # always enter the fusion...
        t = fd.ops.nextafter(a, b)
        if t.is_tensor():
            # ...but skip outputting scalars, which we don't support
            fd.add_output(t)

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
