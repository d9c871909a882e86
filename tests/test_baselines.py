"""The plain torch functions of the examples (the benchmark's eager and torch.compile baselines): they
compute what torch's own autograd and optimizer compute, and give every sized example's outputs in its
shapes and dtypes (on the meta device, nothing allocated)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from hfuse.baselines import BASELINES, EXTENDED_BASELINES, baseline
from hfuse.errors import HfuseError
from hfuse.examples import get_example

SIZED = [(s, n) for s in ("nanogpt", "large") for n in sorted(set(BASELINES) & {
    "qkv_split", "layernorm", "layernorm_bf16", "rmsnorm", "softmax", "attention_softmax", "transpose_cast",
    "bias_gelu", "swiglu", "cross_entropy", "rope", "cat_slices", "qk_norm", "column_normalize",
})] + [(s, n) for s in ("extended-decode", "extended-large") for n in sorted(EXTENDED_BASELINES)]  # fmt: skip


@pytest.mark.parametrize(("subset", "name"), SIZED, ids=[f"{s}-{n}" for s, n in SIZED])
def test_the_plain_function_gives_the_sized_fusions_outputs(subset, name):
    from hfuse import load

    script = load(get_example(name, subset).text, device="meta")
    outputs = baseline(name, subset)(*script.inputs)
    assert len(outputs) == len(script.fusion.outputs)
    for got, out in zip(outputs, script.fusion.outputs, strict=True):
        value = script.fusion.value(out.name)
        assert tuple(got.shape) == tuple(value.shape), out.name
        assert got.dtype == value.dtype.torch, out.name


def _bf16_grads(fn, grad, *xs):
    leaves = [x.float().requires_grad_() for x in xs]
    fn(*leaves).backward(grad.float())
    return [leaf.grad.to(torch.bfloat16) for leaf in leaves]


def _bf16(*shape):
    return torch.randn(*shape).to(torch.bfloat16)


@pytest.mark.parametrize(
    ("name", "fn"),
    [("gelu_backward", F.gelu), ("silu_backward", F.silu)],
)
def test_pointwise_backward_is_autograds(name, fn):
    grad, x = _bf16(32, 96), _bf16(32, 96)
    expected = _bf16_grads(fn, grad, x)
    torch.testing.assert_close(baseline(name, "extended")(grad, x), expected)


def test_rmsnorm_backward_is_autograds():
    grad, x, weight = _bf16(24, 64), _bf16(24, 64), _bf16(64)
    expected = _bf16_grads(lambda x, w: F.rms_norm(x, (64,), w, eps=1e-5), grad, x, weight)
    got = baseline("rmsnorm_backward", "extended")(grad, x, weight)
    for a, e in zip(got, expected, strict=True):
        torch.testing.assert_close(a.float(), e.float(), atol=0.05, rtol=0.02)


def test_layernorm_backward_is_autograds():
    grad, x, weight = _bf16(24, 48), _bf16(24, 48), _bf16(48)
    var, mean = torch.var_mean(x.float(), dim=-1, correction=0)
    rstd = torch.rsqrt(var + 1e-5)
    bias = torch.zeros(48)
    expected = _bf16_grads(lambda x, w, b: F.layer_norm(x, (48,), w, b, eps=1e-5), grad, x, weight, bias)
    got = baseline("layernorm_backward", "extended")(grad, x, mean, rstd, weight)
    for a, e in zip(got, expected, strict=True):
        torch.testing.assert_close(a.float(), e.float(), atol=0.05, rtol=0.02)


def test_adam_step_is_torch_optims_tenth_step_in_place():
    from torch.optim.adam import adam

    param, grad, exp_avg = torch.randn(1000), torch.randn(1000), torch.randn(1000)
    exp_avg_sq = torch.rand(1000)
    expected = [param.clone(), exp_avg.clone(), exp_avg_sq.clone()]
    adam(
        [expected[0]], [grad], [expected[1]], [expected[2]], [], [torch.tensor(9.0)], foreach=False,
        amsgrad=False, beta1=0.9, beta2=0.999, lr=1e-3, weight_decay=0.0, eps=1e-8, maximize=False,
    )  # fmt: skip
    returned = baseline("adam_step", "extended")(param, grad, exp_avg, exp_avg_sq)
    assert returned[0] is param and returned[1] is exp_avg and returned[2] is exp_avg_sq
    for got, want in zip(returned, expected, strict=True):
        torch.testing.assert_close(got, want)


def test_an_example_without_a_plain_function_is_named():
    with pytest.raises(HfuseError, match="no plain torch function for the example 'nope' of the large"):
        baseline("nope", "large")
