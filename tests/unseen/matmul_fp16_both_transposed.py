# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09), TestMatmul.test_matmul.
# Computes: matmul of two fp16 operands that are both column-major views (as_strided), via
#   partial(fusion_func, inps=...).
# Adapted: the test runs the four layouts in a loop; here inps = inputs_nn, and its
#   self.exec_nvfuser(partial(fusion_func, inps=inps), inps) is written as the with-block and fd.execute
#   below.
from functools import partial
import torch
from nvfuser import FusionDefinition

m = 24
n = 16
k = 8
inputs_tt = [
    torch.randn(m, k, device="cuda", dtype=torch.float16),
    torch.randn(k, n, device="cuda", dtype=torch.float16),
]
inputs_tn = [
    inputs_tt[0].clone(),
    inputs_tt[1].clone().as_strided(size=[k, n], stride=[1, k]),
]
inputs_nt = [
    inputs_tt[0].clone().as_strided(size=[m, k], stride=[1, m]),
    inputs_tt[1].clone(),
]
inputs_tn = [inputs_tt[0].clone(), inputs_tn[1].clone()]
inputs_nn = [inputs_nt[0].clone(), inputs_tn[1].clone()]


def fusion_func(fd: FusionDefinition, inps) -> None:
    t0 = fd.from_pytorch(inps[0])
    t1 = fd.from_pytorch(inps[1])
    t2 = fd.ops.matmul(t0, t1)
    fd.add_output(t2)


inps = inputs_nn

with FusionDefinition() as fd:
    partial(fusion_func, inps=inps)(fd)

fd.execute(inps)
