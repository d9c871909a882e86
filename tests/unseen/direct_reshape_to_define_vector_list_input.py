# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03),
#   test_execute_with_tuple_and_list.
# Computes: reshape of [2, 3, 4] to a define_vector(2) given as a Python list [6, 4] in the inputs, then sum(0).
# Adapted: the first of the test's executes (inputs as a list) is kept; the tuple execute and checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


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

fd.execute(inputs_with_list)
