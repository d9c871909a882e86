"""Scaled dot-product attention (nvFuser's sdpfa_fwd and sdpfa_bwd, as Thunder emits them): the reference
against torch's attention and its autograd, the argument forms of the frontend, the print round trip,
the torch segment both strategies give it, every backend on a Thunder-style script, and the refusal of
dropout."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import hfuse
from hfuse import DataType, FusionDefinition, settings
from hfuse.errors import DefinitionError, HfuseError, UnsupportedError
from hfuse.flops import flops
from hfuse.ir import Op
from hfuse.printer import print_fusion
from hfuse.reference import evaluate
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind

BATCH, HEADS, LENGTH, KEYS, HEAD_SIZE, VALUE_SIZE = 2, 3, 5, 7, 8, 4


@pytest.fixture(autouse=True)
def always_validate(monkeypatch):
    """Every compiled run is checked against the reference, whatever an earlier run left in the cache."""
    monkeypatch.setenv(settings.ALWAYS_VALIDATE.env, "1")


def _define(fd: FusionDefinition, t: torch.Tensor):
    return fd.define_tensor(
        shape=[-1] * t.dim(), contiguity=[True] * t.dim(), dtype=DataType.from_torch(t.dtype)
    )


def _qkv(dtype=torch.float32, length=LENGTH, batch=(BATCH,)):
    gen = torch.Generator().manual_seed(0)
    shapes = [(length, HEAD_SIZE), (KEYS, HEAD_SIZE), (KEYS, VALUE_SIZE)]
    return [torch.randn(*batch, HEADS, *shape, generator=gen).to(dtype) for shape in shapes]


def _forward(q, k, v, *, bias=None, mask=None, is_causal=False, scale=None) -> list[torch.Tensor]:
    """sdpfa_fwd's (output, logsumexp) by the reference."""
    given = [q, k, v] + [t for t in (bias, mask) if t is not None]
    with FusionDefinition() as fd:
        tq, tk, tv, *rest = (_define(fd, t) for t in given)
        tb = rest.pop(0) if bias is not None else None
        tm = rest.pop(0) if mask is not None else None
        out, lse, _, _ = fd.ops.sdpfa_fwd(tq, tk, tv, bias=tb, mask=tm, is_causal=is_causal, scale=scale)
        fd.add_output(out)
        fd.add_output(lse)
    return evaluate(fd.fusion(given), given)


def _scores_mask(length: int, keys: int) -> torch.Tensor:
    """A mask that keeps at least one key in every row (a row without keys has no softmax)."""
    mask = torch.rand(BATCH, 1, length, keys, generator=torch.Generator().manual_seed(1)) > 0.4
    mask[..., 0] = True
    return mask


# (id, keyword arguments of sdpfa_fwd besides q, k, v, attention arguments of F.sdpa)
FORWARD_CASES = [
    ("plain", {}, {}),
    ("causal", {"is_causal": True}, {"is_causal": True}),
    ("scale", {"scale": 0.3}, {"scale": 0.3}),
    ("causal-scale", {"is_causal": True, "scale": 1.7}, {"is_causal": True, "scale": 1.7}),
    ("bias", {"bias": "bias"}, {"attn_mask": "bias"}),
    ("mask", {"mask": "mask"}, {"attn_mask": "mask"}),
    ("bias-mask-causal", {"bias": "bias", "mask": "mask", "is_causal": True}, {"attn_mask": "bias+mask"}),
]


@pytest.mark.parametrize("length", [LENGTH, 9], ids=["fewer-queries", "more-queries"])
@pytest.mark.parametrize(
    "given, torch_args", [c[1:] for c in FORWARD_CASES], ids=[c[0] for c in FORWARD_CASES]
)
def test_forward_is_torch_attention(given, torch_args, length):
    q, k, v = _qkv(length=length)
    bias = torch.randn(1, HEADS, length, KEYS)
    mask = _scores_mask(length, KEYS)
    causal = torch.ones(length, KEYS, dtype=torch.bool).tril()
    tensors = {"bias": bias, "mask": mask}
    kwargs = {key: tensors.get(value, value) for key, value in given.items()}
    out, lse = _forward(q, k, v, **kwargs)
    attn_mask = torch_args.get("attn_mask")
    expected_args = dict(torch_args)
    if attn_mask == "bias+mask":  # torch takes no causal flag with a mask: the three as one bias
        keep = mask & causal
        expected_args = {"attn_mask": bias.masked_fill(~keep, -math.inf)}
    elif attn_mask is not None:
        expected_args["attn_mask"] = tensors[attn_mask]
    expected = F.scaled_dot_product_attention(q, k, v, **expected_args)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    # logsumexp: of the scores the output is a softmax of
    scale = kwargs.get("scale", 1 / math.sqrt(HEAD_SIZE))
    scores = q @ k.transpose(-2, -1) * scale
    if "attn_mask" in expected_args:
        m = expected_args["attn_mask"]
        scores = scores.masked_fill(~m, -math.inf) if m.dtype == torch.bool else scores + m
    if kwargs.get("is_causal"):
        scores = scores.masked_fill(~causal, -math.inf)
    torch.testing.assert_close(lse, torch.logsumexp(scores, -1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("is_causal", [False, True], ids=["full", "causal"])
def test_forward_logsumexp_is_torch_flash_kernel_s(is_causal):
    q, k, _ = _qkv()
    v = torch.randn_like(k)  # the CPU flash kernel takes one head size
    out, lse = _forward(q, k, v, is_causal=is_causal, scale=0.5)
    flash_out, flash_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        q, k, v, 0.0, is_causal, scale=0.5
    )[:2]
    torch.testing.assert_close(out, flash_out, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(lse, flash_lse, rtol=1e-5, atol=1e-5)


def _forward_and_backward(fd: FusionDefinition, q, k, v, grad, *, is_causal=False, scale=None) -> None:
    """What Thunder emits for F.scaled_dot_product_attention and its gradients."""
    tq, tk, tv, tg = (_define(fd, t) for t in (q, k, v, grad))
    out, lse, seed, offset = fd.ops.sdpfa_fwd(tq, tk, tv, dropout_p=0.0, is_causal=is_causal, scale=scale)
    dq, dk, dv = fd.ops.sdpfa_bwd(tg, tq, tk, tv, out, lse, 0.0, is_causal, seed, offset, scale)
    for t in (out, dq, dk, dv):
        fd.add_output(t)


def _torch_gradients(q, k, v, grad, **kwargs) -> list[torch.Tensor]:
    leaves = [t.detach().double().requires_grad_() for t in (q, k, v)]
    out = F.scaled_dot_product_attention(*leaves, **kwargs)
    out.backward(grad.double())
    return [out.detach(), *(t.grad for t in leaves)]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"is_causal": True}, {"scale": 0.25}, {"is_causal": True, "scale": 1.5}],
    ids=["plain", "causal", "scale", "causal-scale"],
)
@pytest.mark.parametrize("batch", [(BATCH,), (2, 2)], ids=["rank-4", "rank-5"])
def test_backward_is_torch_autograd(kwargs, batch):
    q, k, v = _qkv(batch=batch)
    grad = torch.randn(*batch, HEADS, LENGTH, VALUE_SIZE, generator=torch.Generator().manual_seed(2))
    with FusionDefinition() as fd:
        _forward_and_backward(fd, q, k, v, grad, **kwargs)
    got = evaluate(fd.fusion([q, k, v, grad]), [q, k, v, grad])
    for actual, expected in zip(got, _torch_gradients(q, k, v, grad, **kwargs), strict=True):
        torch.testing.assert_close(actual, expected.float(), rtol=1e-4, atol=1e-5)


THUNDER_SCRIPT = """\
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(
        shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T1 = fd.define_tensor(
        shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T2 = fd.define_tensor(
        shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T3 = fd.define_tensor(
        shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False,
        stride_order=[3, 2, 1, 0],
    )
    T4, T5, T6, T7 = fd.ops.sdpfa_fwd(T0, T1, T2, dropout_p=0.0, is_causal=True, scale=None)
    S8 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S9 = fd.define_scalar(True, dtype=DataType.Bool)
    T10, T11, T12 = fd.ops.sdpfa_bwd(T3, T0, T1, T2, T4, T5, S8, S9, T6, T7, None)
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T10)
    fd.add_output(T11)
    fd.add_output(T12)

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [
    torch.testing.make_tensor((2, 3, 6, 8), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
    torch.testing.make_tensor((2, 3, 6, 8), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
    torch.testing.make_tensor((2, 3, 6, 8), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
    torch.testing.make_tensor((2, 3, 6, 8), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
]
fd.execute(inputs)
"""


@pytest.mark.parametrize("backend", ["hfuse", "naive", "eager"])
def test_a_thunder_script_runs_on_every_backend_as_torch_computes_it(backend):
    script = hfuse.load(THUNDER_SCRIPT, device="cpu")
    q, k, v, grad = script.inputs
    out, lse, dq, dk, dv = script.fd.execute([t.clone() for t in script.inputs], backend=backend)
    assert [t.dtype for t in (out, lse, dq, dk, dv)] == [torch.bfloat16, torch.float32] + [torch.bfloat16] * 3
    expected = _torch_gradients(q, k, v, grad, is_causal=True)
    for actual, want in zip([out, dq, dk, dv], expected, strict=True):
        torch.testing.assert_close(actual, want.to(torch.bfloat16), rtol=2e-2, atol=2e-2)
    assert lse.shape == (2, 3, 6)


def test_the_thunder_script_prints_and_loads_back_equal():
    fusion = hfuse.load(THUNDER_SCRIPT, device="cpu").fusion
    printed = print_fusion(fusion)
    assert "fd.ops.sdpfa_fwd(T0, T1, T2, dropout_p=S0, is_causal=S1)" in printed
    assert "philox_seed=T6, philox_offset=T7, scale=None)" in printed
    assert hfuse.load(printed, device="cpu").fusion == fusion


def _all_operands(fd: FusionDefinition, q, k, v, bias, mask):
    tq, tk, tv, tb, tm = (_define(fd, t) for t in (q, k, v, bias, mask))
    dropout_p = fd.define_scalar(None, dtype=DataType.Double)
    is_causal = fd.define_scalar(None, dtype=DataType.Bool)
    scale = fd.define_scalar(None, dtype=DataType.Double)
    return tq, tk, tv, tb, tm, dropout_p, is_causal, scale


def test_bias_mask_and_symbolic_scalars_print_and_load_back_equal():
    q, k, v = _qkv(torch.float16)
    bias, mask = torch.randn(1, HEADS, LENGTH, KEYS).half(), _scores_mask(LENGTH, KEYS)
    with FusionDefinition() as fd:
        tq, tk, tv, tb, tm, dropout_p, is_causal, scale = _all_operands(fd, q, k, v, bias, mask)
        out, lse, seed, offset = fd.ops.sdpfa_fwd(tq, tk, tv, tb, tm, dropout_p, is_causal, scale)
        fd.add_output(
            fd.ops.sdpfa_bwd(out, tq, tk, tv, out, lse, dropout_p, is_causal, seed, offset, scale)[1]
        )
    inputs = [q, k, v, bias, mask, 0.0, True, 0.4]
    fusion = fd.fusion(inputs)
    printed = print_fusion(fusion, scalar_values=dict(zip(fusion.inputs[5:], inputs[5:], strict=True)))
    assert "sdpfa_fwd(T0, T1, T2, bias=T3, mask=T4, dropout_p=S0, is_causal=S1, scale=S2)" in printed
    script = hfuse.load(printed, device="cpu")
    assert script.fusion == fusion
    assert script.inputs[5:] == [0.0, True, 0.4]


def test_the_frontend_before_bias_and_mask_takes_the_scalars_by_position():
    q, k, v = _qkv()
    with FusionDefinition() as fd:
        tq, tk, tv = (_define(fd, t) for t in (q, k, v))
        out, *_ = fd.ops.sdpfa_fwd(tq, tk, tv, fd.define_scalar(0.0), fd.define_scalar(True), 0.5)
        fd.add_output(out)
    (got,) = fd.execute([q, k, v], backend="eager")
    torch.testing.assert_close(got, F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5))
    expr = fd.fusion([q, k, v]).exprs[0]
    assert expr.attr_dict == {"has_bias": False, "has_mask": False, "has_scale": True}


def test_the_old_log_sumexp_keyword_of_the_backward():
    q, k, v = _qkv()
    grad = torch.randn_like(q[..., :VALUE_SIZE])
    with FusionDefinition() as fd:
        tq, tk, tv, tg = (_define(fd, t) for t in (q, k, v, grad))
        out, lse, seed, offset = fd.ops.sdpfa_fwd(tq, tk, tv)
        dq, _, _ = fd.ops.sdpfa_bwd(
            tg, tq, tk, tv, out, log_sumexp=lse, dropout_p=None, is_causal=None, philox_seed=seed,
            philox_offset=offset, scale=None,
        )  # fmt: skip
        fd.add_output(dq)
    (got,) = fd.execute([q, k, v, grad], backend="eager")
    torch.testing.assert_close(got, _torch_gradients(q, k, v, grad)[1].float(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("strategy", ["hfuse", "naive"])
def test_attention_is_a_torch_segment_between_kernels(strategy):
    """Casts before and a scale after: kernels around the torch segment, the boundaries say why."""
    q, k, v = _qkv()
    with FusionDefinition() as fd:
        tq, tk, tv = (fd.ops.cast(_define(fd, t), DataType.Half) for t in (q, k, v))
        out, lse, _, _ = fd.ops.sdpfa_fwd(tq, tk, tv, is_causal=True)
        fd.add_output(fd.ops.mul(fd.ops.cast(out, DataType.Float), 2.0))
        fd.add_output(lse)
    fusion = fd.fusion([q, k, v])
    groups = segment(fusion, strategy=strategy).groups
    (attention,) = [g for g in groups if any(e.op is Op.SDPFA_FWD for e in g.exprs)]
    assert attention.kind is SchedulerKind.TORCH and "sdpfa_fwd runs in torch" in attention.note
    assert [e.op for e in attention.exprs] == [Op.SDPFA_FWD]
    assert all(g.kind.launches_kernel for g in groups if g is not attention)
    out, lse = fd.execute([q, k, v], backend=strategy)
    expected = F.scaled_dot_product_attention(
        q.half().float(), k.half().float(), v.half().float(), is_causal=True
    )
    torch.testing.assert_close(out, expected.half().float() * 2, rtol=2e-3, atol=2e-3)


def test_diagrams_name_the_roles_of_the_attention_operands():
    viz = pytest.importorskip("hfuse.viz", reason="diagrams need the graphviz package")
    q, k, v = _qkv()
    bias = torch.randn(1, HEADS, LENGTH, KEYS)
    with FusionDefinition() as fd:
        tq, tk, tv, tb = (_define(fd, t) for t in (q, k, v, bias))
        out, *_ = fd.ops.sdpfa_fwd(tq, tk, tv, bias=tb, is_causal=True, scale=0.5)
        fd.add_output(out)
    fusion = fd.fusion([q, k, v, bias])
    source = viz.ir_graph(fusion).source
    assert "sdpfa_fwd\\nbias: T3\\ndropout_p = 0.0\\nis_causal = True\\nscale = 0.5" in source
    assert "has_bias" not in source
    clusters = viz.segmentation_graph(fusion, segment(fusion)).source
    assert "sdpfa_fwd runs in torch" in clusters


def test_flops_count_the_attention_products():
    q, k, v = _qkv()
    grad = torch.randn(BATCH, HEADS, LENGTH, VALUE_SIZE)
    with FusionDefinition() as fd:
        _forward_and_backward(fd, q, k, v, grad)
    forward, backward = fd.fusion([q, k, v, grad]).exprs[-2:]
    fusion = fd.fusion([q, k, v, grad])
    per_head = 2 * LENGTH * KEYS
    assert flops(fusion, [forward]) == BATCH * HEADS * per_head * (HEAD_SIZE + VALUE_SIZE)
    assert flops(fusion, [backward]) == BATCH * HEADS * per_head * (3 * HEAD_SIZE + 2 * VALUE_SIZE)


def test_a_constant_dropout_is_refused_when_defined():
    q, k, v = _qkv()
    with FusionDefinition() as fd:
        tq, tk, tv = (_define(fd, t) for t in (q, k, v))
        out, *_ = fd.ops.sdpfa_fwd(tq, tk, tv, dropout_p=0.1)
        fd.add_output(out)
    with pytest.raises(UnsupportedError, match=r"sdpfa_fwd: dropout_p is 0\.1: .*hfuse cannot reproduce"):
        fd.fusion([q, k, v])


@pytest.mark.parametrize("backend", ["hfuse", "eager"])
def test_a_symbolic_dropout_runs_at_zero_and_is_refused_above(backend):
    q, k, v = _qkv()
    grad = torch.randn(BATCH, HEADS, LENGTH, VALUE_SIZE)
    with FusionDefinition() as fd:
        tq, tk, tv, tg = (_define(fd, t) for t in (q, k, v, grad))
        dropout_p = fd.define_scalar(None, dtype=DataType.Double)
        out, lse, seed, offset = fd.ops.sdpfa_fwd(tq, tk, tv, dropout_p=dropout_p)
        fd.add_output(fd.ops.sdpfa_bwd(tg, tq, tk, tv, out, lse, dropout_p, False, seed, offset, None)[2])
    (dv,) = fd.execute([q, k, v, grad, 0.0], backend=backend)
    torch.testing.assert_close(dv, _torch_gradients(q, k, v, grad)[3].float(), rtol=1e-4, atol=1e-5)
    with pytest.raises(HfuseError, match=r"sdpfa_fwd: dropout_p is 0\.25 at run time: .*random dropout"):
        fd.execute([q, k, v, grad, 0.25], backend=backend)


def test_arguments_that_are_not_tensors_or_scalars_are_refused_by_name():
    q, k, v = _qkv()
    with FusionDefinition() as fd:
        tq, tk, tv = (_define(fd, t) for t in (q, k, v))
        with pytest.raises(DefinitionError, match="fd.ops.sdpfa_fwd: bias must be a Tensor"):
            fd.ops.sdpfa_fwd(tq, tk, tv, bias=0.5)
        with pytest.raises(
            DefinitionError, match="fd.ops.sdpfa_fwd: is_causal must be True or False, got float 0.5"
        ):
            fd.ops.sdpfa_fwd(tq, tk, tv, is_causal=0.5)
