# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 0583d5727b (2023-03-30),
#   TestNvFuserFrontend.test_nextafter.
# Computes: nextafter over every pair of (float tensor, double tensor, Float scalar, Double scalar),
#   output only when the result is a Tensor (a loop with isinstance inside the definition).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import itertools
import torch
from nvfuser import FusionDefinition, DataType, Tensor

inputs = [
    # torch.nextafter is only defined for float{32,64} tensor inputs
    torch.testing.make_tensor(4, device="cuda", dtype=torch.float32),
    torch.testing.make_tensor(4, device="cuda", dtype=torch.float64),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    s0 = fd.define_constant(1.0, dtype=DataType.Float)
    s1 = fd.define_constant(-1.0, dtype=DataType.Double)

    for a, b in itertools.product(
        [t0, t1, s0, s1],
        [t0, t1, s0, s1],
    ):
        # always enter the fusion...
        t = fd.ops.nextafter(a, b)
        if isinstance(t, Tensor):
            # ...but skip outputting scalars, which we don't support
            fd.add_output(t)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
