# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 95b8896c91 (2024-03-01),
#   TestNvFuserFrontend.test_cast_fp8.
# Computes: a cast of a [5, 5] bf16 input to float8_e4m3fn (dtype picked with
#   torch_dtype_to_nvfuser_dtype).
# Adapted: the test runs fn(in_type, out_type) for every float type and fp8 type both ways; here in_type =
#   torch.bfloat16 and out_type = torch.float8_e4m3fn at top level, and the helper's
#   self.exec_nvfuser(...) is written as the with-block and fd.execute below.
import torch
from nvfuser import FusionDefinition
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

in_type, out_type = torch.bfloat16, torch.float8_e4m3fn

inputs = [
    torch.randn([5, 5], device="cuda").to(in_type),
]


def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.cast(T0, dtype=torch_dtype_to_nvfuser_dtype(out_type))
    fd.add_output(T1)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
