# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_output_stride_order.
# Computes: x + 3.0 written with every stride order of itertools.permutations(range(3), 3), once through
#   fd.add_output(t, perm) and once through fd.ops.stride_order (12 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the loop kept; the calls of the test
#   helper verify_stride_order left out.
import itertools
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.arange(0, 24).reshape(2, 3, 4).cuda().float(),
]

for perm in itertools.permutations(range(3), 3):
    # testing stride_order in add_output
    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        c0 = fd.define_scalar(3.0)
        t1 = fd.ops.add(t0, c0)
        fd.add_output(t1, perm)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute(inputs)

    # testing stride_order in set
    def fusion_set_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        c0 = fd.define_scalar(3.0)
        t1 = fd.ops.add(t0, c0)
        t2 = fd.ops.stride_order(t1, perm)
        fd.add_output(t2)

    with FusionDefinition() as fd:
        fusion_set_func(fd)
    nvf_out = fd.execute(inputs)
