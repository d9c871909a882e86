# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 9fa521ebb6 (2023-03-13),
#   TestNvFuserFrontend.test_op_methods.
# Computes: ops called as methods of fusion tensors and of a scalar (c0.neg(), t0.where, addcmul, add_alpha,
#   var_mean, 3-argument reshape and squeeze), 12 outputs.
# Adapted: the test's statements as written, self.exec_nvfuser(fusion_func, inputs) written as the
#   with-block and fd.execute it performs, eager checks left out; nothing else changed.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(3, 4, 5, device="cuda", dtype=torch.float32),
]

def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    c0 = fd.define_constant(0.5)

    c1 = c0.neg()
    c2 = c0.abs()

    o0 = t0.neg()
    o1 = t0.abs()
    o2 = t0.sum([0])
    o3 = (t0 > c0).where(t0, c0)
    o4 = t0.relu()
    o5 = o0.addcmul(o1, o4, c1)
    o6 = o2.cast(DataType.Double)
    o7 = o1.add_alpha(o2, c0)
    o8 = o1.var([1], correction=1)
    _, o9 = o1.var_mean([1], correction=1)
    o10 = t0.reshape([3, 4, 5], [3 * 4, 1, 5])
    o11 = o10.squeeze([3 * 4, 1, 5], [1])

    fd.add_output(o0)
    fd.add_output(o1)
    fd.add_output(o2)
    fd.add_output(o3)
    fd.add_output(o4)
    fd.add_output(o5)
    fd.add_output(o6)
    fd.add_output(o7)
    fd.add_output(o8)
    fd.add_output(o9)
    fd.add_output(o10)
    fd.add_output(o11)

with FusionDefinition() as fd:
    fusion_func(fd)
nvf_out = fd.execute(inputs)
