# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_segmentation_reduction_pointwise_epilogue.
# Computes: a keepdim sum over the last dim of a [2, 32] input broadcast-added to a [2, 128] input.
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the module's import of
#   torch_dtype_to_nvfuser_dtype written above.
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(2, 32, device="cuda", dtype=torch.float32),
    torch.randn(2, 128, device="cuda", dtype=torch.float32),
]

def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.sum(t0, [-1], True, torch_dtype_to_nvfuser_dtype(torch.float32))
    t3 = fd.ops.add(t1, t2)
    fd.add_output(t3)

with FusionDefinition() as fd:
    fusion_func(fd)
nvf_out1 = fd.execute(inputs)
