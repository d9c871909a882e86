# Source: pytorch/pytorch, torch/csrc/jit/codegen/cuda/python_frontend/examples/simple_example.py at
#   141d1ea891 (2022).
# Computes: abs of a [5] input declared by sizes=[5], strides=[1]; the input is torch.tensor of -1.0s.
# Adapted: none; the file as written (from torch import ones, a commented-out input).
import torch
from torch import ones
from torch._C._nvfuser import Fusion, FusionDefinition, DataType

# Construct and Define Fusion
fusion = Fusion()

with FusionDefinition(fusion) as fd :
    t0 = fd.define_tensor(sizes=[5], strides=[1])
    t1 = fd.ops.abs(t0)
    fd.add_output(t1)

fusion.print_ir()

# Execute Fusion
#input1 = ones(5, device='cuda')
input1 = torch.tensor([-1.0, -1.0, -1.0, -1.0, -1.0], dtype=torch.float, device='cuda')

# Kernel compilation should be cached for the 2nd iteration
# with input tensors of the same shape
for _ in range(5) :
    outputs = fusion.execute([input1])

print(outputs[0])
