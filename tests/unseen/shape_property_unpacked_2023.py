# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 9fa521ebb6 (2023-03-13),
#   TestNvFuserFrontend.test_shape.
# Computes: the extents of 2023's Tensor.shape property unpacked (`(B,) = t0.shape`, `B, C, W = t1.shape`)
#   and used as scalar operands of mul and div.
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the asserts on t0._get_fusion_definition()
#   and len(t1.shape) left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    # test with both one and multiple dimensions
    torch.randn(3, device="cuda", dtype=torch.float32),
    torch.randn(3, 4, 5, device="cuda", dtype=torch.float32),
]

def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])

    (B,) = t0.shape
    t2 = fd.ops.mul(t0, B)

    B, C, W = t1.shape
    t3 = fd.ops.div(t1, C)

    fd.add_output(t2)
    fd.add_output(t3)

with FusionDefinition() as fd:
    fusion_func(fd)
nvf_out = fd.execute(inputs)
