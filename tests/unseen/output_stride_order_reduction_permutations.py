# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_output_stride_order_with_reduction.
# Computes: a sum over dim 2 of a [2, 3, 4, 5] input written with every stride order of its 3-d result,
#   through add_output(stride_order=) and fd.ops.stride_order (12 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the loop kept; the calls of the test
#   helper verify_stride_order left out.
import itertools
import torch
from nvfuser import FusionDefinition, DataType

inputs = [torch.randn(2, 3, 4, 5, device="cuda", dtype=torch.float)]

for stride_order in itertools.permutations(range(3), 3):

    def fusion_add_output(fd: FusionDefinition) -> None:
        T0 = fd.from_pytorch(inputs[0])
        T1 = fd.ops.sum(T0, dims=[2])
        fd.add_output(T1, stride_order=stride_order)

    with FusionDefinition() as fd:
        fusion_add_output(fd)

    out = fd.execute(inputs)[0]

    def fusion_stride_order_op(fd: FusionDefinition) -> None:
        T0 = fd.from_pytorch(inputs[0])
        T1 = fd.ops.sum(T0, dims=[2])
        T2 = fd.ops.stride_order(T1, stride_order)
        fd.add_output(T2)

    with FusionDefinition() as fd:
        fusion_stride_order_op(fd)

    out = fd.execute(inputs)[0]
