# Source: Lightning-AI/lightning-thunder, thunder/executors/nvfuserex_impl.py at 1e22aacb1a (2026-01-29),
#   the SDPA translation: _scaled_dot_product_flash_attention_forward and _backward as
#   scaled_dot_product_flash_attention_grad calls them for F.scaled_dot_product_attention(q, k, v,
#   is_causal=True), printed in the nvfuser_direct repro layout (python_translate.cpp).
# Computes: causal attention of bf16 q, k, v [2, 4, 16, 8] (sdpfa_fwd) and the gradients of q, k and v
#   for the output's gradient (sdpfa_bwd), with the forward's logsumexp and philox state.
# Adapted: Thunder emits the forward and the backward as two fusions; here they are one, the backward
#   reading the forward's outputs; sizes chosen small (head size 8, the flash kernel's multiple).
import torch
from nvfuser_direct import FusionDefinition, DataType


def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    tv1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    tv2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    tv3 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    tv4, tv5, tv6, tv7 = fd.ops.sdpfa_fwd(tv0, tv1, tv2, dropout_p=0.0, is_causal=True)
    tv8, tv9, tv10 = fd.ops.sdpfa_bwd(tv3, tv0, tv1, tv2, tv4, tv5, dropout_p=0.0, is_causal=True, philox_seed=tv6, philox_offset=tv7, scale=None)
    fd.add_output(tv4)
    fd.add_output(tv5)
    fd.add_output(tv8)
    fd.add_output(tv9)
    fd.add_output(tv10)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn((1024,), dtype=torch.bfloat16, device='cuda:0').as_strided((2, 4, 16, 8), (512, 128, 8, 1)),
    torch.randn((1024,), dtype=torch.bfloat16, device='cuda:0').as_strided((2, 4, 16, 8), (512, 128, 8, 1)),
    torch.randn((1024,), dtype=torch.bfloat16, device='cuda:0').as_strided((2, 4, 16, 8), (512, 128, 8, 1)),
    torch.randn((1024,), dtype=torch.bfloat16, device='cuda:0').as_strided((2, 4, 16, 8), (512, 128, 8, 1)),
]
fd.execute(inputs)
