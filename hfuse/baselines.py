"""Each example of the gallery written as a user would write it in plain torch.

These are the benchmark's torch eager and torch.compile baselines (`torch.compile(fn, dynamic=False)` of
the plain function, not of hfuse's op-by-op reference, whose interpreter loop Dynamo would guard), and
the tests' independent oracles. A function takes the script's inputs in order and returns every output
in `fd.add_output` order; an output the fusion writes into an input (`alias_input`) is written there
too. Reduced floats are computed in fp32 and rounded at the end, as the fusions do. Constants that
differ between the sizes of one example (a head count, a scale) are keyword arguments, given by
`SIZE_CONSTANTS`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch
import torch.nn.functional as F

from hfuse.errors import HfuseError

Baseline = Callable[..., list[torch.Tensor]]


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


def qkv_split(x: torch.Tensor, *, heads: int) -> list[torch.Tensor]:
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


def attention_softmax(scores, *, scale: float) -> list[torch.Tensor]:
    return [_causal_softmax_bf16(scores, scale)]


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
    """Four slices, one every quarter of the columns, each an eighth of them wide."""
    every = x.shape[1] // 4
    width = every // 2
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


# ---------------------------------------------------------------------------------- the extended suite


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
    """grad-input and grad-weight of RMSNorm (eps 1e-5), rstd recomputed from x."""
    grad, x, weight = grad.float(), x.float(), weight.float()
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-5)
    x_hat = x * rstd
    grad_x_hat = grad * weight
    grad_input = rstd * (grad_x_hat - x_hat * (grad_x_hat * x_hat).mean(dim=-1, keepdim=True))
    return [_bf16(grad_input), _bf16((grad * x_hat).sum(dim=0))]


def gelu_backward(grad, x) -> list[torch.Tensor]:
    return [_bf16(torch.ops.aten.gelu_backward(grad.float(), x.float()))]


def silu_backward(grad, x) -> list[torch.Tensor]:
    return [_bf16(torch.ops.aten.silu_backward(grad.float(), x.float()))]


def transposed_add(a, b_transposed) -> list[torch.Tensor]:
    return [a + b_transposed]


def expanded_bias(x, bias_expanded) -> list[torch.Tensor]:
    return [_bf16(F.relu(x.float() + bias_expanded.float()))]


def permuted_add(a_permuted, b) -> list[torch.Tensor]:
    return [a_permuted + b]


def odd_bias_grad(x) -> list[torch.Tensor]:
    return [x.float().sum(dim=0)]


def odd_pointwise(x, y) -> list[torch.Tensor]:
    return [_bf16(x.float() * torch.sigmoid(y.float()))]


def odd_row_logsumexp(x) -> list[torch.Tensor]:
    return [torch.logsumexp(x.float(), dim=1)]


def adam_step(param, grad, exp_avg, exp_avg_sq) -> list[torch.Tensor]:
    """Step 10 of torch.optim.Adam (lr 1e-3, betas 0.9 and 0.999, eps 1e-8), in place, written out as
    torch.optim's single-tensor Adam computes it."""
    beta1, beta2, lr, eps, step = 0.9, 0.999, 1e-3, 1e-8, 10
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    step_size = lr / (1 - beta1**step)
    denom = (exp_avg_sq.sqrt() / math.sqrt(1 - beta2**step)).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)
    return [param, exp_avg, exp_avg_sq]


BASELINES: dict[str, Baseline] = {
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

EXTENDED_BASELINES: dict[str, Baseline] = {
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
    "odd_bias_grad": odd_bias_grad,
    "odd_pointwise": odd_pointwise,
    "odd_row_logsumexp": odd_row_logsumexp,
    "permuted_add": permuted_add,
    "rmsnorm_backward": rmsnorm_backward,
    "silu_backward": silu_backward,
    "softmax_vocab": softmax_vocab,
    "transposed_add": transposed_add,
}

# example -> subset -> the keyword constants of that size; a subset not named takes the "*" entry
SIZE_CONSTANTS: dict[str, dict[str, dict[str, object]]] = {
    "qkv_split": {"small": {"heads": 4}, "nanogpt": {"heads": 16}, "large": {"heads": 64}},
    "attention_softmax": {"small": {"scale": 1 / math.sqrt(32)}, "*": {"scale": 1 / math.sqrt(64)}},
}


def baseline(name: str, subset: str) -> Baseline:
    """The plain torch function of the example `name` at the size of `subset`."""
    table = EXTENDED_BASELINES if subset.startswith("extended") else BASELINES
    if name not in table:
        raise HfuseError(f"no plain torch function for the example {name!r} of the {subset} subset")
    sizes = SIZE_CONSTANTS.get(name, {})
    constants = sizes.get(subset, sizes.get("*", {}))
    return functools.partial(table[name], **constants) if constants else table[name]
