# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at bc34f22ac8 (2024-10-21),
#   TestNvFuserFrontend.test_pad_dynamic.
# Computes: pad whose widths are a define_vector of Int scalars computed as int(2.5 * 7) = 17 on every
#   side.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.testing.make_tensor((1, 2, 3), dtype=torch.float32, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])

    S10 = fd.define_scalar(2.5, dtype=DataType.Float)
    S13 = fd.define_scalar(7, dtype=DataType.Int)
    S15 = fd.ops.mul(S10, S13)
    S16 = fd.ops.cast(S15, dtype=DataType.Int)
    V18 = fd.define_vector([S16, S16, S16, S16], dtype=DataType.Int)

    t1 = fd.ops.pad(t0, V18)
    fd.add_output(t1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
