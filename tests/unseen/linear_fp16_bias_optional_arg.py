# Source: NVIDIA/Fuser, tests/python/test_matmul.py at e92a443bf1 (2025-09-09), TestMatmul.test_linear.
# Computes: linear of fp16 [24, 8] by a column-major [16, 8] weight with a 1-D bias; the helper takes inp,
#   wt and bias (None or a tensor) and branches on it.
# Adapted: the test runs the four layouts with and without bias under itertools.product; here inp, wt =
#   inputs_mk_kn and bias = bias1d, and its self.exec_nvfuser(partial(...), input_tensors) is written as
#   the with-block and fd.execute below.
from functools import partial
import torch
from nvfuser import FusionDefinition

m = 24
n = 16
k = 8
bias1d = torch.randn(n, device="cuda", dtype=torch.float16)
inputs_mk_nk = [
    torch.randn(m, k, device="cuda", dtype=torch.float16),
    torch.randn(n, k, device="cuda", dtype=torch.float16),
]
inputs_mk_kn = [
    inputs_mk_nk[0].clone(),
    inputs_mk_nk[1].clone().as_strided(size=[n, k], stride=[1, n]),
]
inputs_km_nk = [
    inputs_mk_nk[0].clone().as_strided(size=[m, k], stride=[1, m]),
    inputs_mk_nk[1].clone(),
]
inputs_km_kn = [
    inputs_km_nk[0].clone(),
    inputs_mk_kn[1].clone(),
]


def fusion_func(
    fd: FusionDefinition,
    inp: torch.Tensor,
    wt: torch.Tensor,
    bias: torch.Tensor | None,
) -> None:
    t0 = fd.from_pytorch(inp)
    t1 = fd.from_pytorch(wt)
    if bias is not None:
        t2 = fd.from_pytorch(bias)
        t_out = fd.ops.linear(t0, t1, t2)
    else:
        t_out = fd.ops.linear(t0, t1)
    fd.add_output(t_out)


[inp, wt], bias = inputs_mk_kn, bias1d
input_tensors = (inp, wt, bias) if bias is not None else (inp, wt)

with FusionDefinition() as fd:
    partial(fusion_func, inp=inp, wt=wt, bias=bias)(fd)

fd.execute(input_tensors)
