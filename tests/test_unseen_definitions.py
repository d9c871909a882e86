"""Real fusion definitions hfuse was not written against, in every style nvFuser users write them.

tests/unseen/ holds repro scripts, test definitions, benchmarks and README examples of nvFuser from 2022
to nvfuser_direct, Thunder's printed fusions and repros, and scripts from issue threads, each as its
author wrote it (unseen_corpus.py and unseen/SOURCES.md say where each comes from). Every one is read as
text on the meta device (the ones hfuse cannot read yet are strict xfails naming the error), and its
printed Fusion loads back equal. The ones small enough for the Triton interpreter are also run by every
backend (the first run of a plan is validated against the torch reference); where the computation is
short, eager results are also compared with torch written out here. tests/gpu/test_unseen_gpu.py runs
all of them at their real sizes on a GPU. The second half runs ten of them as live Python through
hfuse's FusionDefinition.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from unseen_corpus import (
    CPU_RUN_FAILURES,
    CUDA_UNDEFINED_RESULTS,
    LOAD_FAILURES,
    PATHS,
    RUN_FAILURES,
    UNSEEN_DIR,
    fresh_copies,
    load_params,
)

import hfuse
from hfuse import DataType, FusionDefinition, settings
from hfuse.errors import HfuseError
from hfuse.printer import print_fusion

# Tensor elements (every value of the fusion together) up to which a definition runs in the interpreter
INTERPRETER_BUDGET = 200_000

# file stem -> why it is not run in the interpreter at all
NOT_IN_INTERPRETER = {
    "pad_expanded_empty_input": (
        "the pad kernel loads the empty, all-stride-0 input without a mask, which crashes the interpreter"
    ),
    "cast_bf16_to_fp8_e4m3": (
        "the interpreter's fp8 e4m3 conversion is wrong below the normal range (|x| < 2**-6 rounds to 0 or "
        "to a bf16 subnormal's wrong neighbour), so randn inputs fail validation about one run in four"
    ),
}


@pytest.fixture(autouse=True)
def always_validate(monkeypatch):
    """The runtime's check of each first run is this module's oracle: never skip it for a validation
    remembered in the cache folder by an earlier run."""
    monkeypatch.setenv(settings.ALWAYS_VALIDATE.env, "1")


def _f32(x: torch.Tensor) -> torch.Tensor:
    return x.float()


def _batchnorm(x, w, b, running_mean, running_var):
    xf = x.float()
    var, mean = torch.var_mean(xf, dim=[0, 2, 3], correction=0)
    invstd = torch.rsqrt(var + 1e-5)
    out = (xf - mean[None, :, None, None]) * invstd[None, :, None, None] * w.float()[None, :, None, None]
    return [(out + b.float()[None, :, None, None]).half(), mean, invstd]


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


# script name -> the outputs torch computes from the script's inputs
TORCH = {
    "index_select_reshape_direct": lambda i, x: [x.index_select(0, i.reshape(25)).reshape(5, 5, 16)],
    "cat_with_empty": lambda a, b: [torch.cat([a * 2.0, b], dim=-1)],
    "empty_reductions": lambda a, b: [torch.zeros(5), torch.zeros(0)],
    "layernorm_scalar_eps": lambda x, eps: [F.layer_norm(x.reshape(2, 1, 2), (2,), eps=eps).reshape(2, 2)],
    "var_mean_half_size_one": lambda x: [t.half() for t in torch.var_mean(x.float(), dim=1, correction=0)],
    "repeated_casts_sums": lambda x: [x.float().sum([0, 1]), x.float().sum([0, 1]), x.float().sum(2)],
    "expanded_inputs_reshape": lambda a, b, c: [
        (a.float() * (b.float() * c.float()).half().float()[:, :, None]).half()
    ],
    "reshape_after_sums_axes": lambda a, b: [(a.sum([0, 1]) * b.sum(1)).sum()],
    "full_then_slices": lambda: [torch.ones(2).half(), torch.ones(3).half()],
    "readme_2023_legacy": lambda a, b: [((a + b) * 3.0).sum(-1)],
    "tensor_sizes_output_shape": lambda a, b: [a + b],
    "expand_then_reshape": lambda x: [x[:, :, None].expand(4, 5, 6).reshape(40, 3)],
    "var_double_axes": lambda x: [x.var(dim=[1, 3])],
    "squeeze_then_slice": lambda x: [x.reshape(2)[1:2]],
    "subclass_relu_double": lambda x: [x.relu() * 2],
    "subclass_pointwise_from_pytorch": lambda v, a, b: [v[None, :] + a, v[:, None] + b],
    "linear_add_from_pytorch": lambda x, r, w: [F.linear(x, w) + r],
    "gather_after_add": lambda a, b, i: [torch.gather(a + b, 0, i)],
    "reshape_vector_input": lambda x, *shape: [x.reshape(shape).sum(3)],
    "pasted_method_expand": lambda a, b: [a.expand(b.size()) + b],
    "pasted_method_gather": lambda x, y, index: [torch.gather(x + y, 0, index)],
    "reshape_size_and_scalars": lambda x, d1, d2: [x.reshape(3, d1, d2)],
    "reshape_extent_arithmetic": lambda n, x: [x.reshape(n, -1).sum(1)],
    "empty_reshape": lambda x: [x.reshape(5, 0)],
    "int32_cast_scalar": lambda a, b: [((a + b) * 3).sum(-1, dtype=torch.int32)],
    "matmul_bf16_direct": lambda a, b: [a @ b],
    "scalar_only_inputs_full_2023": lambda s0, s1: [torch.full((2, 2), s0 + s1)],
    "transpose_stride_order_output": lambda x: [(x.permute(2, 0, 1) * 0.5).relu()],
    "thunder_define_vector_shapes": lambda x, v: [
        ((x.float() * v.float()).reshape(2, 3, 4, 4) + 1.0).bfloat16()
    ],
    "direct_number_operands": lambda x: [_gelu_tanh(x)],
    "reshape_squeeze_old_forms": lambda a, b: [
        (a.reshape(2, 12) + b.reshape(2, 12)) * 2.0,
        ((a.reshape(2, 12) + b.reshape(2, 12)) * 2.0).sum(1),
    ],
    "batchnorm_running_stats_alias": _batchnorm,
    "direct_cummax_dim0": lambda x: [x.cummax(0).values],
    "direct_cummin_dim1": lambda x: [x.cummin(1).values],
    "direct_half_plus_double_relu": lambda a, b: [(a.double() + b).relu()],
    "direct_stride_order_after_sum": lambda x: [x.sum(2)],
}


def _load(path: Path, device: str = "cpu") -> hfuse.Script:
    return hfuse.load(path.read_text(encoding="utf-8"), device=device)


def _interpreter_sized(path: Path) -> bool:
    return sum(v.numel for v in _load(path, "meta").fusion.tensors()) <= INTERPRETER_BUDGET


_RUN_FAILURES = {**RUN_FAILURES, **CPU_RUN_FAILURES}


def _run_params() -> list:
    return [
        pytest.param(
            path,
            id=path.stem,
            marks=[pytest.mark.xfail(strict=True, raises=HfuseError, reason=_RUN_FAILURES[path.stem])]
            if path.stem in _RUN_FAILURES
            else [],
        )
        for path in PATHS
    ]


def test_the_folder_holds_every_style():
    texts = [p.read_text(encoding="utf-8") for p in PATHS]
    assert len(texts) >= 30
    for marker in (
        "nvfuser_direct", "as_strided", "make_tensor", "symbolic_sizes", "define_constant", "axes=",
        "output_shape=", "arg=", "original_shape=", "from_pytorch", "(FusionDefinition):", "define_vector",
        "stride_order=[1, 0, 2]", "alias_input=", "define_scalar(None",
    ):  # fmt: skip
        assert any(marker in t for t in texts), marker


def test_the_corpus_spans_sources_and_eras():
    texts = {p.stem: p.read_text(encoding="utf-8") for p in PATHS}
    sourced = [t for t in texts.values() if t.startswith("# Source: ")]
    assert len(sourced) >= 100
    for source in ("NVIDIA/Fuser", "pytorch/pytorch", "Lightning-AI/lightning-thunder", "issue #"):
        assert any(source in t.splitlines()[0] for t in sourced), source
    for marker in (
        "torch._C._nvfuser", "FusionManager", "nvfuser._C", "fd.add_input", "contiguous=", "shape=[-1",
        "stride_order=", "define_vector", "manual_normalization", "nvfuser_direct", "# CUDA devices:",
        "fd.ops.uniform", "fd.ops.linear", "fd.ops.matmul", "fd.ops.scatter", "fd.ops.index_select",
        "fd.ops.take_along_axis", "fd.ops.cat", "fd.ops.pad", "fd.ops.segment_set", "fd.ops.var_mean",
        "float8_e4m3fn", "complex64", "alias_input=", "as_strided", ".expand(",
    ):  # fmt: skip
        assert any(marker in t for t in texts.values()), marker


def test_sources_table_lists_every_file():
    table = (UNSEEN_DIR / "SOURCES.md").read_text(encoding="utf-8")
    listed = {line.split("|")[1].strip(" `") for line in table.splitlines() if line.startswith("| `")}
    assert listed == {p.name for p in PATHS}


def test_expected_failures_name_collected_files():
    stems = {p.stem for p in PATHS}
    for expected in (
        LOAD_FAILURES,
        RUN_FAILURES,
        CPU_RUN_FAILURES,
        CUDA_UNDEFINED_RESULTS,
        NOT_IN_INTERPRETER,
    ):
        assert set(expected) <= stems, set(expected) - stems
    assert not set(LOAD_FAILURES) & (
        set(_RUN_FAILURES) | set(CUDA_UNDEFINED_RESULTS) | set(NOT_IN_INTERPRETER)
    )


@pytest.mark.parametrize("path", load_params())
def test_unseen_definition_loads_on_meta(path):
    script = _load(path, "meta")
    assert script.fusion.outputs
    assert len(script.inputs) == len(script.fusion.inputs)  # one value per input, a vector's spread
    tensors = [x for x in script.inputs if isinstance(x, torch.Tensor)]
    # the 0-d CPU tensors a script makes on the CPU (nvFuser's is_cpu scalars) stay there
    assert all(x.device.type == "meta" or (x.device.type == "cpu" and x.dim() == 0) for x in tensors)
    text = path.read_text(encoding="utf-8")
    for segment in range(1, len(script.segments)):  # each further definition of the script
        assert hfuse.load(text, device="meta", segment=segment).fusion.outputs


@pytest.mark.parametrize("path", _run_params())
def test_unseen_definition_runs_on_every_backend(path):
    if path.stem in LOAD_FAILURES:
        pytest.skip("does not load yet (test_unseen_definition_loads_on_meta says why)")
    if path.stem in NOT_IN_INTERPRETER:
        pytest.skip(NOT_IN_INTERPRETER[path.stem])
    if not _interpreter_sized(path):
        pytest.skip("too large for the interpreter; tests/gpu/test_unseen_gpu.py runs it")
    script = _load(path)
    expected = TORCH[path.stem](*fresh_copies(script.inputs)) if path.stem in TORCH else None
    eager = script.fd.execute(fresh_copies(script.inputs), backend="eager")
    if expected is not None:
        assert len(eager) == len(expected)
        for got, want in zip(eager, expected, strict=True):
            torch.testing.assert_close(got, want.to(got.dtype), equal_nan=True)
    # Each compiled plan checks its first run against the reference and raises ValidationError.
    for options in ({}, {"backend": "naive"}, {"alias_outputs": False}):
        outputs = script.fd.execute(fresh_copies(script.inputs), **options)
        assert [o.shape for o in outputs] == [e.shape for e in eager], options


@pytest.mark.parametrize("path", load_params())
def test_unseen_definition_prints_and_loads_back(path):
    device = "cpu" if path.stem not in LOAD_FAILURES and _interpreter_sized(path) else "meta"
    fusion = _load(path, device).fusion
    printed = print_fusion(fusion)
    assert hfuse.load(printed, device=device).fusion == fusion, printed


# Live Python: nvFuser scripts run unchanged with `from hfuse import FusionDefinition, DataType`.


def _live_groupnorm_fwd(fd: FusionDefinition) -> None:
    x = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float)
    T1 = fd.ops.reshape(x, new_shape=[2, 2, 3, 4, 4])
    T2, T3 = fd.ops.var_mean(T1, dims=[2, 3, 4], correction=0, keepdim=True)
    T4 = fd.ops.add(T2, fd.define_scalar(1e-5, dtype=DataType.Double))
    T5 = fd.ops.rsqrt(T4)
    T6 = fd.ops.mul(fd.ops.sub(T1, T3), T5)
    fd.add_output(fd.ops.reshape(T6, new_shape=[2, 6, 4, 4]))


def _norm_bwd(fd: FusionDefinition, reduction_axes: list[int], rank: int) -> None:
    """A loop-built definition (as nvFuser's normalization benchmark writes it)."""
    bcast = [i != 1 for i in range(rank)]
    x = fd.define_tensor(shape=[-1] * rank, contiguity=[True] * rank, dtype=DataType.Float)
    grad = fd.define_tensor(shape=[-1] * rank, contiguity=[True] * rank, dtype=DataType.Float)
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    mean = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    invstd = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    num_features = fd.define_scalar(1)
    for ax in reduction_axes:
        num_features *= x.size(ax)
    norm = fd.ops.reciprocal(num_features)
    mean = fd.ops.broadcast(mean, bcast)
    grad_sum = fd.ops.sum(grad, dims=reduction_axes, keepdim=False)
    x_sub_mean = fd.ops.sub(x, mean)
    dot_p = fd.ops.sum(fd.ops.mul(grad, x_sub_mean), dims=reduction_axes, keepdim=False)
    grad_mean = fd.ops.broadcast(fd.ops.mul(grad_sum, norm), bcast)
    proj_scale = fd.ops.broadcast(fd.ops.mul(fd.ops.mul(dot_p, norm), fd.ops.mul(invstd, invstd)), bcast)
    grad_scale = fd.ops.mul(fd.ops.broadcast(weight, bcast), fd.ops.broadcast(invstd, bcast))
    proj = fd.ops.mul(proj_scale, x_sub_mean)
    fd.add_output(fd.ops.mul(fd.ops.sub(fd.ops.sub(grad, proj), grad_mean), grad_scale))
    fd.add_output(fd.ops.mul(dot_p, invstd))
    fd.add_output(grad_sum)


def _batchnorm_grads(x, grad, weight):
    xd = x.double().requires_grad_()
    wd = weight.double().requires_grad_()
    bd = torch.zeros_like(wd, requires_grad=True)
    out = F.batch_norm(xd, None, None, weight=wd, bias=bd, training=True, eps=1e-5)
    out.backward(grad.double())
    return [xd.grad, wd.grad, bd.grad]


def _live_cases():
    x4 = torch.randn(2, 6, 4, 4)
    bn = [torch.randn(4, 3, 5, 5), torch.randn(4, 3, 5, 5), torch.randn(3)]
    bn_mean = bn[0].mean(dim=[0, 2, 3])
    bn_invstd = torch.rsqrt(bn[0].var(dim=[0, 2, 3], unbiased=False) + 1e-5)
    a, b = torch.randn(2, 4, 8), torch.randn(2, 4, 8)
    v, m = torch.randn(3), torch.randn(2, 3, 4)
    q = torch.randn(2, 3, 8)
    h = torch.randn(6, 16, dtype=torch.float16)
    idx = torch.randint(0, 5, (4,))
    table = torch.randn(5, 8)

    def basic(fd):
        t0, t1 = fd.from_pytorch(a), fd.from_pytorch(b)
        t4 = fd.ops.sum(fd.ops.mul(fd.ops.add(t0, t1), fd.define_scalar(3.0)), [-1], False, DataType.Float)
        fd.add_output(t4)

    def operators(fd):
        t0, t1 = fd.from_pytorch(a), fd.from_pytorch(b)
        fd.add_output((t0 * 2 + t1) / 3 - -t1)
        fd.add_output(t0 > 0.5)

    def implicit_broadcast(fd):
        t0, t1 = fd.from_pytorch(v), fd.from_pytorch(m)
        fd.add_output(fd.ops.add(fd.ops.broadcast_in_dim(t0, [2, 3, 4], [1]), t1))

    def softmax_half(fd):
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
        t1 = fd.ops.cast(t0, DataType.Float)
        t2 = fd.ops.max(t1, dims=[1], keepdim=True)
        t3 = fd.ops.exp(fd.ops.sub(t1, t2))
        t4 = fd.ops.sum(t3, dims=[1], keepdim=True)
        fd.add_output(fd.ops.cast(fd.ops.div(t3, t4), DataType.Half))

    def slice_pad_cat(fd):
        t0 = fd.from_pytorch(q)
        lo = fd.ops.slice(t0, start_indices=[0, 0, 0], end_indices=[2, 3, 4], strides=[1, 1, 1])
        hi = fd.ops.slice(t0, start_indices=[0, 0, 4], end_indices=[2, 3, 8], strides=[1, 1, 1])
        fd.add_output(fd.ops.cat([fd.ops.neg(hi), lo], dim=-1))
        fd.add_output(fd.ops.pad(lo, [0, 4], fd.define_scalar(0.0, dtype=DataType.Double)))

    def index_select(fd):
        t0, t1 = fd.from_pytorch(table), fd.from_pytorch(idx)
        fd.add_output(fd.ops.relu(fd.ops.index_select(t0, t1, 0)))

    def scalar_read_by_two_kernels(fd):
        t0 = fd.from_pytorch(a)
        inverse = fd.ops.reciprocal(fd.define_scalar(None, dtype=DataType.Double))
        fd.add_output(fd.ops.mul(fd.ops.sum(t0, dims=[2]), inverse))
        fd.add_output(fd.ops.mul(fd.ops.sum(t0, dims=[0]), inverse))

    def where_clamp(fd):
        t0 = fd.from_pytorch(a)
        fd.add_output(fd.ops.where(fd.ops.gt(t0, 0.0), fd.ops.clamp(t0, 0.1, 0.9), fd.ops.abs(t0)))

    return [
        ("basic_sum", basic, [a, b], [((a + b) * 3.0).sum(-1)]),
        ("python_operators", operators, [a, b], [(a * 2 + b) / 3 + b, a > 0.5]),
        ("implicit_broadcast", implicit_broadcast, [v, m], [v[None, :, None] + m]),
        ("softmax_half", softmax_half, [h], [torch.softmax(h.float(), 1).half()]),
        (
            "slice_pad_cat",
            slice_pad_cat,
            [q],
            [torch.cat([-q[..., 4:], q[..., :4]], -1), F.pad(q[..., :4], [0, 4])],
        ),
        ("index_select", index_select, [table, idx], [table[idx].relu()]),
        ("where_clamp", where_clamp, [a], [torch.where(a > 0, a.clamp(0.1, 0.9), a.abs())]),
        ("scalar_read_by_two_kernels", scalar_read_by_two_kernels, [a, 4.0], [a.sum(2) / 4, a.sum(0) / 4]),
        ("groupnorm_fwd", _live_groupnorm_fwd, [x4], [F.group_norm(x4, 2, eps=1e-5)]),
        (
            "batchnorm_bwd_loops",
            lambda fd: _norm_bwd(fd, [0, 2, 3], 4),
            [*bn, bn_mean, bn_invstd],
            _batchnorm_grads(*bn),
        ),
    ]


LIVE = _live_cases()


@pytest.mark.parametrize(("define", "inputs", "expected"), [c[1:] for c in LIVE], ids=[c[0] for c in LIVE])
def test_live_python_definition(define, inputs, expected):
    with FusionDefinition() as fd:
        define(fd)
    for backend in ("hfuse", "eager"):
        outputs = fd.execute(inputs, backend=backend)
        assert len(outputs) == len(expected)
        for got, want in zip(outputs, expected, strict=True):
            torch.testing.assert_close(got, want.to(got.dtype), rtol=1e-4, atol=1e-4)


class _RopeFusion(FusionDefinition):
    """The subclass style, live: definition() runs on the first execute."""

    def definition(self) -> None:
        self.q = self.define_tensor(shape=[-1, -1, -1], contiguity=True, dtype=DataType.BFloat16)
        self.cos = self.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.BFloat16)
        self.sin = self.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.BFloat16)
        q = self.ops.cast(self.q, dtype=DataType.Float)
        half = self.ops.slice(q, [0, 0, 0], [2, 4, 4], [1, 1, 1])
        rest = self.ops.slice(q, [0, 0, 4], [2, 4, 8], [1, 1, 1])
        rotated = self.ops.cat([self.ops.neg(rest), half], dim=-1)
        cos = self.ops.broadcast_in_dim(self.ops.cast(self.cos, DataType.Float), [2, 4, 8], [1, 2])
        sin = self.ops.broadcast_in_dim(self.ops.cast(self.sin, DataType.Float), [2, 4, 8], [1, 2])
        out = self.ops.add(self.ops.mul(q, cos), self.ops.mul(rotated, sin))
        self.add_output(self.ops.cast(out, dtype=DataType.BFloat16))


def test_live_subclass_definition():
    q, cos, sin = (
        torch.randn(2, 4, 8).bfloat16(),
        torch.randn(4, 8).bfloat16(),
        torch.randn(4, 8).bfloat16(),
    )
    out = _RopeFusion().execute([q, cos, sin])[0]
    qf = q.float()
    rotated = torch.cat([-qf[..., 4:], qf[..., :4]], -1)
    torch.testing.assert_close(out, (qf * cos.float() + rotated * sin.float()).bfloat16())
