# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_iota.
# Computes: two iotas (Int and Int32) built in a loop over (length, start, step, dtype) tuples; no tensor
#   inputs.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    (2, 0, 2, DataType.Int),
    (3, 100, 1, DataType.Int32),
    # TODO: How do I that that? I am getting the following error:
    # NameError: name 'None0' is not defined
    # (4, None, None, DataType.Int),
]


def fusion_func(fd: FusionDefinition):
    for input in inputs:
        c0 = fd.define_constant(input[0])
        c1 = None if input[1] is None else fd.define_constant(input[1])
        c2 = None if input[2] is None else fd.define_constant(input[2])
        dt = input[3]
        t3 = fd.ops.iota(c0, c1, c2, dt)
        fd.add_output(t3)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute([])
