# Source: NVIDIA/Fuser, tests/python/direct/test_python_frontend.py at 81c4b22fd7 (2026-04-03), test_slice.
# Computes: three slices of [2, 5, 10] in nvfuser_direct: tuple indices, [list(offset), T0.shape()], and
#   two define_vector(3) of scalar inputs; inputs [x, *offset, *x.shape].
# Adapted: the test's nvfuser_direct_test.exec_nvfuser(...) call is written as the with-block and
#   fd.execute below; its checks are left out.
import torch
from nvfuser_direct import FusionDefinition, DataType

x = torch.randn((2, 5, 10), dtype=torch.float32, device="cuda:0")
offset = (0, 1, 2)


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[-1, -1, -1],
        contiguity=[True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T1 = fd.ops.slice(
        T0, start_indices=offset, end_indices=(2, 5, 10), strides=(1, 1, 1)
    )
    fd.add_output(T1)
    V_start = list(offset)
    V_end = T0.shape()
    T2 = fd.ops.slice(T0, V_start, V_end)
    fd.add_output(T2)
    dynamic_start = fd.define_vector(3)
    dynamic_end = fd.define_vector(3)
    T3 = fd.ops.slice(T0, dynamic_start, dynamic_end)
    fd.add_output(T3)


inputs = [x, *offset, *x.shape]

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
