# Source: pytorch/pytorch, torch/csrc/jit/codegen/cuda/python_frontend/examples/
#   python_example_broadcast_in_dim.py at 249807914e (2022, the FusionManager spelling).
# Computes: two fusions in one file: a [3] input broadcast_in_dim to [2, 3, 4] plus a [2, 3, 4] input, then
#   a [1, 1, 4] input (sizes= and strides= from the tensor) broadcast to [2, 3, 4] plus the other.
# Adapted: none; the file as written (FusionManager(), two definitions, inputs reassigned between them).
import torch

from torch._C._nvfuser import FusionManager, FusionDefinition

# Construct and Define Fusion
fm1 = FusionManager()

with FusionDefinition(fm1) as fd :
    t0 = fd.define_tensor(1)
    t1 = fd.define_tensor(3)

    t0_b = fd.ops.broadcast_in_dim(t0, [2, 3, 4], [1])
    t2 = fd.ops.add(t0_b, t1)

    fd.add_output(t2)

fm1.print_ir()

# Execute Fusion
input1 = torch.ones(3, device='cuda')
input2 = torch.ones(2, 3, 4, device='cuda')

# Kernel compilation should be cached for the 2nd iteration
# with input tensors of the same shape
for _ in range(5) :
    outputs = fm1.execute([input1, input2])

print(outputs[0])

fm2 = FusionManager()

input1 = torch.ones(1, 1, 4, device='cuda')
input2 = torch.ones(2, 3, 4, device='cuda')

with FusionDefinition(fm2) as fd :
    t0 = fd.define_tensor(sizes=input1.size(), strides=input1.stride())
    t1 = fd.define_tensor(sizes=input2.size(), strides=input2.stride())

    t0_b = fd.ops.broadcast_in_dim(t0, [2, 3, 4], [0, 1, 2])
    t2 = fd.ops.add(t0_b, t1)

    fd.add_output(t2)

fm2.print_ir()

# Kernel compilation should be cached for the 2nd iteration
# with input tensors of the same shape
for _ in range(5) :
    outputs = fm2.execute([input1, input2])

print(outputs[0])
