# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_execute_with_tuple_and_list.
# Computes: a reshape of a [2, 3, 4] input to a shape passed as a define_vector(2) input, then a sum; run
#   once with the shape as a list and once as a tuple (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; both runs kept.
import torch
from nvfuser import FusionDefinition, DataType

shape = [2, 3, 4]
new_shape = [6, 4]

tensor = torch.randn(shape, device="cuda")
inputs_with_list = [tensor, new_shape]

def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs_with_list[0])
    n_shape = fd.define_vector(2)

    t1 = fd.ops.reshape(t0, n_shape)
    t2 = fd.ops.sum(t1, dims=[0])

    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)
nvf_out = fd.execute(inputs_with_list)

inputs_with_tuple = [tensor, tuple(new_shape)]
# expect to reuse fusion
with FusionDefinition() as fd:
    fusion_func(fd)
nvf_out = fd.execute(inputs_with_tuple)
