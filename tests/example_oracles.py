"""What each small example computes, written independently with plain torch.

Each oracle takes the script's inputs as arguments and returns its outputs in `fd.add_output` order. Reduced
floats are computed in fp32 and rounded at the end, as the fusions do.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

Oracle = Callable[..., list[torch.Tensor]]


def _bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16)


def _rms_norm_bf16(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return _bf16(F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps=1e-6))


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x = x.float()
    return _bf16(x * cos.float() + _rotate_half(x) * sin.float())


def _causal_softmax_bf16(scores: torch.Tensor, scale: float) -> torch.Tensor:
    s = scores.shape[-1]
    future = torch.ones(s, s, dtype=torch.bool, device=scores.device).triu(1)
    return _bf16(torch.softmax((scores.float() * scale).masked_fill(future, float("-inf")), dim=-1))


def qkv_split(x: torch.Tensor) -> list[torch.Tensor]:
    heads = 4
    q, k, v = x.split(x.shape[-1] // 3, dim=-1)
    b, s, hidden = q.shape
    return [t.reshape(b, s, heads, hidden // heads).transpose(1, 2) for t in (q, k, v)]


def layernorm(x, weight, bias) -> list[torch.Tensor]:
    return [F.layer_norm(x, (x.shape[-1],), weight, bias, eps=1e-5)]


def layernorm_bf16(x, weight, bias) -> list[torch.Tensor]:
    return [_bf16(F.layer_norm(x.float(), (x.shape[-1],), weight.float(), bias.float(), eps=1e-5))]


def var_mean_layernorm(x, weight, bias) -> list[torch.Tensor]:
    var, mean = torch.var_mean(x, dim=-1, correction=0, keepdim=True)
    rstd = torch.rsqrt(var + 1e-5)
    return [F.layer_norm(x, (x.shape[-1],), weight, bias, eps=1e-5), mean, rstd]


def residual_layernorm(x, residual, weight, bias) -> list[torch.Tensor]:
    hidden = x + residual  # bf16 + bf16 rounds once, as the fusion's add-then-cast does
    normed = F.layer_norm(hidden.float(), (x.shape[-1],), weight.float(), bias.float(), eps=1e-5)
    return [hidden, _bf16(normed)]


def rmsnorm(x, weight) -> list[torch.Tensor]:
    return [_rms_norm_bf16(x, weight)]


def qk_norm(q, k, q_weight, k_weight) -> list[torch.Tensor]:
    return [_rms_norm_bf16(q, q_weight), _rms_norm_bf16(k, k_weight)]


def softmax(x) -> list[torch.Tensor]:
    return [torch.softmax(x, dim=1)]


def attention_softmax(scores) -> list[torch.Tensor]:
    return [_causal_softmax_bf16(scores, scale=1 / math.sqrt(32))]


def attention_mask_input(scores, mask) -> list[torch.Tensor]:
    return [_bf16(torch.softmax((scores.float() * 0.125).masked_fill(mask, float("-inf")), dim=-1))]


def transpose_cast(x) -> list[torch.Tensor]:
    return [x.t().to(torch.bfloat16)]


def bias_gelu(x, bias) -> list[torch.Tensor]:
    return [_bf16(F.gelu(x.float() + bias.float(), approximate="tanh"))]


def gelu_erf(x) -> list[torch.Tensor]:
    return [F.gelu(x)]


def linear_gelu(x, weight, bias) -> list[torch.Tensor]:
    return [F.gelu(F.linear(x, weight, bias))]


def swiglu(a, b) -> list[torch.Tensor]:
    return [_bf16(F.silu(a.float()) * b.float())]


def cross_entropy(logits, targets) -> list[torch.Tensor]:
    return [F.cross_entropy(logits, targets)]


def rope(q, k, cos, sin) -> list[torch.Tensor]:
    return [_rope(q, cos, sin), _rope(k, cos, sin)]


def cat_slices(x) -> list[torch.Tensor]:
    width, every = 32, x.shape[1] // 4
    return [torch.cat([x[:, i * every : i * every + width] for i in range(4)], dim=1)]


def column_normalize(x) -> list[torch.Tensor]:
    return [x / torch.sqrt((x * x).sum(dim=0) + 1e-6)]


def add(a, b) -> list[torch.Tensor]:
    return [a + b]


def bias_add(x, bias) -> list[torch.Tensor]:
    return [(x + bias) * 0.5]


def pad(x) -> list[torch.Tensor]:
    return [F.pad(x, (1, 2, 0, 3), value=0.5)]


def symbolic_scalar(x, alpha) -> list[torch.Tensor]:
    return [x * alpha + 2.0]


def outer_reduction(x) -> list[torch.Tensor]:
    return [x.sum(dim=0), x.amax(dim=0)]


def mean_all(x) -> list[torch.Tensor]:
    return [x.float().mean()]


ORACLES: dict[str, Oracle] = {
    "add": add,
    "attention_mask_input": attention_mask_input,
    "attention_softmax": attention_softmax,
    "bias_add": bias_add,
    "bias_gelu": bias_gelu,
    "cat_slices": cat_slices,
    "column_normalize": column_normalize,
    "cross_entropy": cross_entropy,
    "gelu_erf": gelu_erf,
    "layernorm": layernorm,
    "layernorm_bf16": layernorm_bf16,
    "linear_gelu": linear_gelu,
    "mean_all": mean_all,
    "outer_reduction": outer_reduction,
    "pad": pad,
    "qk_norm": qk_norm,
    "qkv_split": qkv_split,
    "residual_layernorm": residual_layernorm,
    "rmsnorm": rmsnorm,
    "rope": rope,
    "softmax": softmax,
    "swiglu": swiglu,
    "symbolic_scalar": symbolic_scalar,
    "transpose_cast": transpose_cast,
    "var_mean_layernorm": var_mean_layernorm,
}
