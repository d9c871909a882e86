# Source: pytorch/pytorch, test/test_nvfuser_frontend.py at 0b7e314eaf (2022, the nvfuser._C Fusion API),
#   TestNvFuserFrontend.test_alias_output_to_input.
# Computes: t0 + 1.0 and t0 + 2.0 + 3.0 returned, and t0 + 2.0 written back into the input
#   (add_output(t2, alias_input=t0)); define_constant scalars.
# Adapted: the test's exec_nvfuser(fusion_func, inputs) is written as the harness of that file writes it
#   (fs = Fusion(); with FusionDefinition(fs) as fd: fusion_func(fd); fs.execute(inputs)); its eager check
#   is left out.
import torch

from nvfuser._C import Fusion, FusionCache, FusionDefinition, DataType

def fusion_func(fd : FusionDefinition) :
    t0 = fd.define_tensor(2)
    s0 = fd.define_constant(1.0)
    s1 = fd.define_constant(2.0)
    s2 = fd.define_constant(3.0)
    t1 = fd.ops.add(t0, s0)
    t2 = fd.ops.add(t0, s1)
    t3 = fd.ops.add(t2, s2)
    fd.add_output(t1)
    fd.add_output(t2, alias_input=t0)
    fd.add_output(t3)

inputs = [
    torch.ones(4, 4, device='cuda'),
]

fs = Fusion()
with FusionDefinition(fs) as fd:
    fusion_func(fd)
out = fs.execute(inputs)
