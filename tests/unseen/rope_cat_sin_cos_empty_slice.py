# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 1794433546 (2024-05-22),
#   TestNvFuserFrontend.test_unpadded_catop_issue2275_repro2.
# Computes: slice halves of a [2, 32, 4096, 128] bf16 input, neg, cat, sin + cos, then a cat with an empty
#   slice.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn((2, 32, 4096, 128), dtype=torch.bfloat16, device="cuda:0")
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])

    T1 = fd.ops.slice(
        T0,
        start_indices=[0, 0, 0, 0],
        end_indices=[2, 32, 4096, 128],
        strides=[1, 1, 1, 1],
    )
    T2 = fd.ops.slice(
        T1,
        start_indices=[0, 0, 0, 0],
        end_indices=[2, 32, 4096, 64],
        strides=[1, 1, 1, 1],
    )
    T3 = fd.ops.slice(
        T1,
        start_indices=[0, 0, 0, 64],
        end_indices=[2, 32, 4096, 128],
        strides=[1, 1, 1, 1],
    )
    T4 = fd.ops.cast(fd.ops.neg(T3), DataType.BFloat16)
    T5 = fd.ops.cat([T4, T2], dim=-1)
    T6 = fd.ops.add(fd.ops.sin(T5), fd.ops.cos(T5))
    T7 = fd.ops.cast(T6, DataType.BFloat16)

    T100 = fd.ops.slice(
        T0,
        start_indices=[0, 0, 0, 0],
        end_indices=[2, 32, 4096, 0],
        strides=[1, 1, 1, 1],
    )
    T101 = fd.ops.cat([T7, T100], dim=-1)
    fd.add_output(T101)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
