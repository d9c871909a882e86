# Source: NVIDIA/Fuser, tests/python/direct/test_high_complexity.py at 81c4b22fd7 (2026-04-03),
#   test_broadcast_in_dim_with_dynamic_shapes.
# Computes: a [4] vector broadcast to t0.shape() (a Vector) and to torch sizes of two input lists, added to
#   [2, 3, 4]; the first of the three definitions is run.
# Adapted: the test runs nvfuser_direct_test.exec_nvfuser(...) three times ("Test 1" to "Test 3"); Test 1,
#   fusion_func_1 on inputs_1, is written as the with-block and fd.execute below; checks left out.
import torch
from nvfuser_direct import FusionDefinition, DataType


inputs_1 = [
    torch.randn(2, 3, 4, device="cuda"),
    torch.randn(4, device="cuda"),
]

inputs_2 = [
    torch.randn(2, 3, 1024, device="cuda"),
    torch.randn(1024, device="cuda"),
]

def fusion_func_1(fd: FusionDefinition):
    t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True])
    t1 = fd.define_tensor(shape=[-1], contiguity=[True])

    t1_b = fd.ops.broadcast_in_dim(t1, t0.shape(), [2])
    t2 = fd.ops.add(t0, t1_b)

    fd.add_output(t2)

def fusion_func_2(fd: FusionDefinition):
    t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True])
    t1 = fd.define_tensor(shape=[-1], contiguity=[True])

    t1_b = fd.ops.broadcast_in_dim(t1, inputs_1[0].size(), [2])
    t2 = fd.ops.add(t0, t1_b)

    fd.add_output(t2)

def fusion_func_3(fd: FusionDefinition):
    t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True])
    t1 = fd.define_tensor(shape=[-1], contiguity=[True])

    t1_b = fd.ops.broadcast_in_dim(t1, inputs_2[0].size(), [2])
    t2 = fd.ops.add(t0, t1_b)

    fd.add_output(t2)

inputs = inputs_1

with FusionDefinition() as fd:
    fusion_func_1(fd)

fd.execute(inputs)
