# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_prod.
# Computes: prod in four call forms: all dims, dim 1, dim 1 keepdim, dims [-1].
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.ones(2, 4, 8, device='cuda'),
]


def fusion_func(fd: FusionDefinition) :
    t0 = fd.from_pytorch(inputs[0])

    t1 = fd.ops.prod(t0, DataType.Float)
    t2 = fd.ops.prod(t0, 1, False, DataType.Float)
    t3 = fd.ops.prod(t0, 1, True, DataType.Float)
    t4 = fd.ops.prod(t0, [-1], False, DataType.Float)

    fd.add_output(t1)
    fd.add_output(t2)
    fd.add_output(t3)
    fd.add_output(t4)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
