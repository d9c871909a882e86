# Batch-norm forward in training mode: running statistics updated in place through alias_input.
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    input = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
    bias = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
    running_mean = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    running_var = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    input = fd.ops.cast(input, dtype=DataType.Float)
    weight = fd.ops.cast(weight, dtype=DataType.Float)
    bias = fd.ops.cast(bias, dtype=DataType.Float)
    var, mean = fd.ops.var_mean(input, dims=[0, 2, 3], correction=0, keepdim=False)
    eps = fd.define_scalar(1e-05, dtype=DataType.Double)
    var_eps = fd.ops.add(var, eps)
    invstd = fd.ops.rsqrt(var_eps)
    invstd_bcast = fd.ops.broadcast(invstd, [True, False, True, True])
    mean_bcast = fd.ops.broadcast(mean, [True, False, True, True])
    x_sub_mean = fd.ops.sub(input, mean_bcast)
    x_norm = fd.ops.mul(x_sub_mean, invstd_bcast)
    weight = fd.ops.broadcast(weight, [True, False, True, True])
    x_scaled = fd.ops.mul(x_norm, weight)
    bias = fd.ops.broadcast(bias, [True, False, True, True])
    output = fd.ops.add(x_scaled, bias)
    rev_momentum = fd.define_scalar(0.99, dtype=DataType.Double)
    momentum = fd.define_scalar(0.01, dtype=DataType.Double)
    updated_mean = fd.ops.add(fd.ops.mul(momentum, mean), fd.ops.mul(rev_momentum, running_mean))
    updated_var = fd.ops.add(fd.ops.mul(momentum, var), fd.ops.mul(rev_momentum, running_var))
    output = fd.ops.cast(output, dtype=DataType.Half)
    fd.add_output(updated_mean, alias_input=running_mean)
    fd.add_output(updated_var, alias_input=running_var)
    fd.add_output(output)
    fd.add_output(mean)
    fd.add_output(invstd)

inputs = [
    torch.randn(4, 3, 5, 5, dtype=torch.float16, device='cuda'),
    torch.randn(3, dtype=torch.float16, device='cuda'),
    torch.randn(3, dtype=torch.float16, device='cuda'),
    torch.zeros(3, dtype=torch.float32, device='cuda'),
    torch.ones(3, dtype=torch.float32, device='cuda'),
]
fd.execute(inputs)
