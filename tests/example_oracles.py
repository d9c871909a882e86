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


# ---------------------------------------------------------------------------------- the extended suite


def _input_grads(fn: Callable[..., torch.Tensor], grad, *xs) -> list[torch.Tensor]:
    """The bf16 gradients of `fn` (run in fp32) with respect to each of `xs`, for the gradient `grad`."""
    leaves = [x.float().requires_grad_() for x in xs]
    fn(*leaves).backward(grad.float())
    return [_bf16(leaf.grad) for leaf in leaves]


def bias_grad_bf16(x) -> list[torch.Tensor]:
    return [x.float().sum(dim=0)]


def bias_grad_fp32(x) -> list[torch.Tensor]:
    return [x.sum(dim=0)]


def middle_sum(x) -> list[torch.Tensor]:
    return [x.float().sum(dim=1)]


def column_center(x) -> list[torch.Tensor]:
    return [_bf16(x.float() - x.float().mean(dim=0))]


def mean_all_fp32(x) -> list[torch.Tensor]:
    return [x.mean()]


def l2_norm_bf16(x) -> list[torch.Tensor]:
    return [torch.linalg.vector_norm(x.float())]


def softmax_vocab(logits) -> list[torch.Tensor]:
    return [_bf16(torch.softmax(logits.float(), dim=-1))]


def log_softmax_vocab(logits) -> list[torch.Tensor]:
    return [_bf16(F.log_softmax(logits.float(), dim=-1))]


def cross_entropy_32k(logits, targets) -> list[torch.Tensor]:
    return [F.cross_entropy(logits.float(), targets)]


def cross_entropy_128k(logits, targets) -> list[torch.Tensor]:
    return [F.cross_entropy(logits.float(), targets, reduction="none")]


def add_rmsnorm(x, residual, weight) -> list[torch.Tensor]:
    hidden = x + residual
    return [hidden, _bf16(F.rms_norm(hidden.float(), (x.shape[-1],), weight.float(), eps=1e-5))]


def layernorm_backward(grad, x, mean, rstd, weight) -> list[torch.Tensor]:
    bias = torch.zeros_like(weight, dtype=torch.float32)
    grads = torch.ops.aten.native_layer_norm_backward(
        grad.float(), x.float(), [x.shape[-1]], mean[:, None], rstd[:, None], weight.float(), bias, [True] * 3
    )
    return [_bf16(g) for g in grads]


def rmsnorm_backward(grad, x, weight) -> list[torch.Tensor]:
    return _input_grads(lambda x, w: F.rms_norm(x, (x.shape[-1],), w, eps=1e-5), grad, x, weight)


def gelu_backward(grad, x) -> list[torch.Tensor]:
    return _input_grads(F.gelu, grad, x)


def silu_backward(grad, x) -> list[torch.Tensor]:
    return _input_grads(F.silu, grad, x)


def transposed_add(a, b_transposed) -> list[torch.Tensor]:
    return [a + b_transposed]


def expanded_bias(x, bias_expanded) -> list[torch.Tensor]:
    return [_bf16(F.relu(x.float() + bias_expanded.float()))]


def permuted_add(a_permuted, b) -> list[torch.Tensor]:
    return [a_permuted + b]


def odd_pointwise(x, y) -> list[torch.Tensor]:
    return [_bf16(x.float() * torch.sigmoid(y.float()))]


def odd_row_logsumexp(x) -> list[torch.Tensor]:
    return [torch.logsumexp(x.float(), dim=1)]


def adam_step(param, grad, exp_avg, exp_avg_sq) -> list[torch.Tensor]:
    """The 10th step of torch.optim.Adam from the given moments, on copies: the new param, exp_avg and
    exp_avg_sq. torch.optim.adam.adam is what Adam.step runs, without the optimizer object (whose
    constructor imports torch._dynamo, seconds of a test's time)."""
    from torch.optim.adam import adam

    param, exp_avg, exp_avg_sq = param.clone(), exp_avg.clone(), exp_avg_sq.clone()
    adam(
        [param], [grad], [exp_avg], [exp_avg_sq], [], [torch.tensor(9.0)], foreach=False,
        amsgrad=False, beta1=0.9, beta2=0.999, lr=1e-3, weight_decay=0.0, eps=1e-8, maximize=False,
    )  # fmt: skip
    return [param, exp_avg, exp_avg_sq]


EXTENDED_ORACLES: dict[str, Oracle] = {
    "adam_step": adam_step,
    "add_layernorm": residual_layernorm,
    "add_rmsnorm": add_rmsnorm,
    "bias_grad_bf16": bias_grad_bf16,
    "bias_grad_fp32": bias_grad_fp32,
    "column_center": column_center,
    "cross_entropy_128k": cross_entropy_128k,
    "cross_entropy_32k": cross_entropy_32k,
    "expanded_bias": expanded_bias,
    "gelu_backward": gelu_backward,
    "l2_norm_bf16": l2_norm_bf16,
    "layernorm_backward": layernorm_backward,
    "log_softmax_vocab": log_softmax_vocab,
    "mean_all_fp32": mean_all_fp32,
    "middle_sum": middle_sum,
    "odd_pointwise": odd_pointwise,
    "odd_row_logsumexp": odd_row_logsumexp,
    "permuted_add": permuted_add,
    "rmsnorm_backward": rmsnorm_backward,
    "silu_backward": silu_backward,
    "softmax_vocab": softmax_vocab,
    "transposed_add": transposed_add,
}
