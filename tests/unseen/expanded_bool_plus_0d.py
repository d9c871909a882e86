# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_expanded_bcast_tensor.
# Computes: 0-dim tensor + [5, 5, 5] tensor + an expanded bool tensor (stride 0 in the last dim).
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.tensor(1.5, device="cuda"),
    torch.randn(5, 5, 5, device='cuda'),
    torch.randint(0, 1, (5, 5), device="cuda").bool().unsqueeze(-1).expand(5, 5, 5),
]


def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    T3 = fd.ops.add(T0, T1)
    T4 = fd.ops.add(T2, T3)
    fd.add_output(T4)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
