# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at fc719a7f3a (2025-02-11),
#   TestNvFuserFrontend.test_bcast_squeeze_replace_aliased_output.
# Computes: reshape [1, 1, 576] bf16 to [1, 576] and write a copy (set) into the other input.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.testing.make_tensor(
        (1, 1, 576), dtype=torch.bfloat16, device="cuda:0"
    ),
    torch.testing.make_tensor((1, 576), dtype=torch.bfloat16, device="cuda:0"),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[1, 1, 576],
        contiguity=[None, None, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T1 = fd.define_tensor(
        shape=[1, 576],
        contiguity=[None, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T5 = fd.ops.reshape(T0, new_shape=[1, 576])
    T6 = fd.ops.set(T5)
    fd.add_output(T6, T1)
    fd.add_output(T5)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
