# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 4c18efcf61 (2023-03-24),
#   TestNvFuserFrontend.test_pad.
# Computes: seven pads of a [2, 3] input: fd.ops.pad and the t0.pad() method, zero and partial widths, a
#   fill value.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition

inputs = [
    torch.testing.make_tensor((2, 3), dtype=torch.float32, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])

    t1 = fd.ops.pad(t0, [1, 1, 1, 1])
    fd.add_output(t1)

    # tensor method version
    t2 = t0.pad([1, 1, 1, 1])
    fd.add_output(t2)

    # zero padding in some dims
    t3 = fd.ops.pad(t0, [0, 0, 2, 3])
    fd.add_output(t3)

    # zero padding in all dims
    t4 = fd.ops.pad(t0, [0, 0, 0, 0])
    fd.add_output(t4)

    # no padding provided in first dim
    t5 = fd.ops.pad(t0, [2, 3])
    fd.add_output(t5)

    # test padding with a value other than 0
    fill_val = fd.define_constant(2.0)
    t6 = fd.ops.pad(t0, [2, 3], fill_val)
    fd.add_output(t6)

    # test padding with a value other than 0 with tensor method
    t7 = t0.pad([2, 3], fill_val)
    fd.add_output(t7)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
