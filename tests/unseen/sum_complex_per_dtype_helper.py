# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_reduction_complex_number.
# Computes: sum over the last dim of a [2, 32] complex input, in a helper test_dtype(torch_dtype) run for
#   complex64 and complex128 (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the module's import of
#   torch_dtype_to_nvfuser_dtype written above.
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype
import torch
from nvfuser import FusionDefinition, DataType

def test_dtype(torch_dtype):
    inputs = [torch.randn(2, 32, device="cuda", dtype=torch_dtype)]

    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.ops.sum(
            t0, [-1], False, torch_dtype_to_nvfuser_dtype(torch_dtype)
        )
        fd.add_output(t1)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out1 = fd.execute(inputs)

list_of_dtype = [torch.complex64, torch.complex128]
for torch_dtype in list_of_dtype:
    test_dtype(torch_dtype)
