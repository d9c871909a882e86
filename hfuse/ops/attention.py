"""Scaled dot-product attention, nvFuser's sdpfa_fwd and sdpfa_bwd: torch runs them, in Float.

The meaning is attention's math form, as torch's math backend computes it: the scores
S = q @ k^T * scale (+ bias, -inf where the mask is False, -inf above the diagonal when causal, aligned
top-left as torch's is_causal), L = logsumexp(S) over the last dim, output = softmax(S) @ v. The backward
recomputes P = exp(S - L) from the forward's logsumexp and gives dV = P^T dO, dP = dO V^T,
D = rowsum(dO * O), dS = P * (dP - D), dQ = dS K * scale and dK = dS^T Q * scale.

Dropout draws the flash kernel's random mask, which hfuse cannot reproduce: a dropout_p above 0 is refused
(a constant when the definition is built, a symbolic one here, when the value comes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.infer.attention import DROPOUT_REFUSAL, operand_names
from hfuse.ir import Op
from hfuse.ops.meaning import Tensor

_NEGATIVE_INFINITY = float("-inf")


def _named(op: Op, args: list[Tensor], attrs: dict[str, Any]) -> dict[str, Tensor]:
    given = dict(zip(operand_names(op, attrs), args, strict=True))
    dropout_p = given["dropout_p"].item()
    if dropout_p > 0:
        raise UnsupportedError(
            f"{op.frontend_name}: dropout_p is {dropout_p!r} at run time: {DROPOUT_REFUSAL}"
        )
    return given


def _scale(given: dict[str, Tensor], head_size: int) -> float:
    return float(given["scale"].item()) if "scale" in given else 1.0 / math.sqrt(head_size)


def _scores(given: dict[str, Tensor], scale: float) -> Tensor:
    """The scaled scores q @ k^T with the bias, the mask and the causal mask applied, in Float."""
    q, k = given["query"].float(), given["key"].float()
    scores = q @ k.transpose(-2, -1) * scale
    if "bias" in given:
        scores = scores + given["bias"].float()
    if "mask" in given:  # nvFuser adds the mask as a bias: 0 where it is True, -inf where it is False
        scores = scores + torch.where(given["mask"], 0.0, _NEGATIVE_INFINITY)
    if given["is_causal"].item():
        length, keys = scores.shape[-2:]
        above = torch.ones(length, keys, dtype=torch.bool, device=scores.device).triu(1)
        scores = scores.masked_fill(above, _NEGATIVE_INFINITY)
    return scores


def _random_state(device: torch.device) -> tuple[Tensor, Tensor]:
    """philox_seed and philox_offset: no random numbers are drawn without dropout."""
    return torch.zeros((), dtype=torch.int64, device=device), torch.zeros(
        (), dtype=torch.int64, device=device
    )


def sdpfa_fwd(
    args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device
) -> tuple[Tensor, ...]:
    given = _named(Op.SDPFA_FWD, args, attrs)
    scores = _scores(given, _scale(given, given["query"].shape[-1]))
    logsumexp = torch.logsumexp(scores, dim=-1)
    probabilities = torch.exp(scores - logsumexp.unsqueeze(-1))
    output = probabilities @ given["value"].float()
    return (output, logsumexp, *_random_state(device))


def sdpfa_bwd(
    args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device
) -> tuple[Tensor, ...]:
    given = _named(Op.SDPFA_BWD, args, attrs)
    scale = _scale(given, given["query"].shape[-1])
    q, k, v = (given[name].float() for name in ("query", "key", "value"))
    grad_output, output = given["grad_output"].float(), given["output"].float()
    probabilities = torch.exp(_scores(given, scale) - given["logsumexp"].float().unsqueeze(-1))
    grad_value = probabilities.transpose(-2, -1) @ grad_output
    grad_probabilities = grad_output @ v.transpose(-2, -1)
    row_dot = (grad_output * output).sum(dim=-1, keepdim=True)
    grad_scores = probabilities * (grad_probabilities - row_dot)
    grad_query = grad_scores @ k * scale
    grad_key = grad_scores.transpose(-2, -1) @ q * scale
    return grad_query, grad_key, grad_value
