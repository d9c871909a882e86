# Source: NVIDIA/Fuser, tests/python/test_python_frontend.py at 6219364787 (2025-10-13),
#   TestNvFuserFrontend.test_right_shift_logical_sizeof_dtype.
# Computes: logical_right_shift of int32 and then int64 values by their own bit width given as an Int scalar
#   input (define_scalar(None)), the with-block in a loop over the dtypes (2 definitions).
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; the loop kept.
import torch
from nvfuser import FusionDefinition, DataType

dtypes = [torch.int32, torch.int64]
input = torch.tensor(
    [
        -1,
        -2147483648,
        1073741824,
        -64463884,
        -65968277,
        4042311,
        -98914167,
        5526216,
    ],
    device="cuda",
)

for idx, dtype in enumerate(dtypes):
    current_input = input.to(dtype)
    num_bits = 32 if (dtype == torch.int32) else 64

    # expected_outputs given by jax.lax.shift_right_logical(inputs, sizeof(dtype))

    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(current_input)
        c0 = fd.define_scalar(None, dtype=DataType.Int)
        t1 = fd.ops.logical_right_shift(t0, c0)
        fd.add_output(t1)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute([current_input, num_bits])
