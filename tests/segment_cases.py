"""Hand-built fusions mirroring the benchmark suite (small shapes), shared by the segmentation tests."""

from __future__ import annotations

import torch

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op, Output, Value
from hfuse.passes import PassResult, run_passes
from hfuse.reference import evaluate
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind, Segmentation


def segment_fusion(fusion, strategy="hfuse", alias_outputs=True) -> tuple[PassResult, Segmentation]:
    """The passes, then the segmentation of their result, as the compiler runs them."""
    passes = run_passes(fusion, alias_outputs=alias_outputs and strategy == "hfuse")
    return passes, segment(passes.final, strategy=strategy, alias=passes.aliases)


F32, BF16 = DataType.Float, DataType.BFloat16


class Builder(FusionBuilder):
    """FusionBuilder with one-line helpers for the ops these fusions use."""

    def op(self, op: Op, *inputs: Value, **attrs) -> Value:
        (out,) = self.add(op, list(inputs), attrs)
        return out

    def const(self, value: float, dtype: DataType = DataType.Double) -> Value:
        return self.define_scalar(dtype, value)

    def cast(self, x: Value, dtype: DataType) -> Value:
        return self.op(Op.CAST, x, dtype=dtype)

    def bcast(self, x: Value, shape, dims) -> Value:
        return self.op(Op.BROADCAST_IN_DIM, x, shape=list(shape), broadcast_dims=list(dims))

    def sum(self, x: Value, dims, keepdim: bool = False) -> Value:
        return self.op(Op.SUM, x, dims=list(dims), keepdim=keepdim)

    def slice(self, x: Value, starts, ends) -> Value:
        return self.op(Op.SLICE, x, starts=list(starts), ends=list(ends), strides=[1] * len(starts))

    def rms_norm(self, x: Value, weight: Value, eps: float = 1e-6) -> Value:
        rows, n = x.shape[:-1], x.shape[-1]
        xf = self.cast(x, F32)
        mean_sq = self.op(Op.DIV, self.sum(self.op(Op.MUL, xf, xf), [x.rank - 1]), self.const(float(n)))
        rstd = self.op(Op.RSQRT, self.op(Op.ADD, mean_sq, self.const(eps)))
        scaled = self.op(Op.MUL, xf, self.bcast(rstd, x.shape, range(len(rows))))
        out = self.op(Op.MUL, scaled, self.bcast(self.cast(weight, F32), x.shape, [x.rank - 1]))
        return self.cast(out, x.dtype)

    def softmax(self, x: Value, dim: int) -> Value:
        kept = [d for d in range(x.rank) if d != dim]
        shifted = self.op(Op.SUB, x, self.bcast(self.op(Op.MAX, x, dims=[dim]), x.shape, kept))
        e = self.op(Op.EXP, shifted)
        return self.op(Op.DIV, e, self.bcast(self.sum(e, [dim]), x.shape, kept))


def qkv_split(shape=(16, 128, 3072), heads: int = 16) -> Fusion:
    b = Builder()
    x = b.define_tensor(shape, F32)
    batch, seq, width = shape
    part = width // 3
    for i in range(3):
        piece = b.slice(x, [0, 0, i * part], [batch, seq, (i + 1) * part])
        heads_view = b.op(Op.RESHAPE, piece, new_shape=[batch, seq, heads, part // heads])
        b.add_output(b.op(Op.PERMUTE, heads_view, dims=[0, 2, 1, 3]))
    return b.build()


def layer_norm(shape=(16, 64)) -> Fusion:
    b = Builder()
    x, w, bias = (
        b.define_tensor(shape, F32),
        b.define_tensor(shape[-1:], F32),
        b.define_tensor(shape[-1:], F32),
    )
    var, mean = b.add(Op.VAR_MEAN, [x], {"dims": [1], "correction": 0, "keepdim": False})
    rstd = b.op(Op.RSQRT, b.op(Op.ADD, var, b.const(1e-5)))
    centered = b.op(Op.SUB, x, b.bcast(mean, shape, [0]))
    normed = b.op(Op.MUL, centered, b.bcast(rstd, shape, [0]))
    out = b.op(Op.ADD, b.op(Op.MUL, normed, b.bcast(w, shape, [1])), b.bcast(bias, shape, [1]))
    b.add_output(out)
    b.add_output(mean)
    b.add_output(rstd)
    return b.build()


def rms_norm(shape=(16, 64)) -> Fusion:
    b = Builder()
    x, w = b.define_tensor(shape, BF16), b.define_tensor(shape[-1:], BF16)
    b.add_output(b.rms_norm(x, w))
    return b.build()


def softmax(shape=(16, 64)) -> Fusion:
    b = Builder()
    b.add_output(b.softmax(b.define_tensor(shape, F32), 1))
    return b.build()


def masked_softmax(shape=(2, 2, 16, 16)) -> Fusion:
    b = Builder()
    x = b.define_tensor(shape, BF16)
    seq = shape[-1]
    scaled = b.op(Op.MUL, b.cast(x, F32), b.const(0.125))
    rows = b.bcast(b.op(Op.IOTA, length=seq), [seq, seq], [0])
    cols = b.bcast(b.op(Op.IOTA, length=seq), [seq, seq], [1])
    allowed = b.bcast(b.op(Op.GE, rows, cols), shape, [2, 3])
    masked = b.op(Op.WHERE, allowed, scaled, b.const(float("-inf")))
    b.add_output(b.cast(b.softmax(masked, 3), BF16))
    return b.build()


def transpose_cast(shape=(64, 32)) -> Fusion:
    b = Builder()
    x = b.define_tensor(shape, F32)
    b.add_output(b.cast(b.op(Op.PERMUTE, x, dims=[1, 0]), BF16))
    return b.build()


def bias_gelu(shape=(16, 64)) -> Fusion:
    b = Builder()
    x, bias = b.define_tensor(shape, BF16), b.define_tensor(shape[-1:], BF16)
    h = b.op(Op.ADD, b.cast(x, F32), b.bcast(b.cast(bias, F32), shape, [1]))
    cube = b.op(Op.MUL, b.op(Op.MUL, h, h), h)
    inner = b.op(Op.MUL, b.op(Op.ADD, h, b.op(Op.MUL, cube, b.const(0.044715))), b.const(0.7978845608))
    gelu = b.op(Op.MUL, b.op(Op.MUL, h, b.const(0.5)), b.op(Op.ADD, b.op(Op.TANH, inner), b.const(1.0)))
    b.add_output(b.cast(gelu, BF16))
    return b.build()


def swiglu(shape=(16, 64)) -> Fusion:
    b = Builder()
    gate, up = b.define_tensor(shape, BF16), b.define_tensor(shape, BF16)
    b.add_output(b.cast(b.op(Op.MUL, b.op(Op.SILU, b.cast(gate, F32)), b.cast(up, F32)), BF16))
    return b.build()


def cross_entropy(shape=(16, 64)) -> Fusion:
    b = Builder()
    logits, targets = b.define_tensor(shape, F32), b.define_tensor(shape[:1], DataType.Int)
    rows = shape[0]
    shifted = b.op(Op.SUB, logits, b.bcast(b.op(Op.MAX, logits, dims=[1]), shape, [0]))
    log_sum = b.op(Op.LOG, b.sum(b.op(Op.EXP, shifted), [1]))
    log_probs = b.op(Op.SUB, shifted, b.bcast(log_sum, shape, [0]))
    picked = b.op(Op.TAKE_ALONG_AXIS, log_probs, b.bcast(targets, [rows, 1], [0]), dim=1)
    loss = b.op(Op.DIV, b.op(Op.NEG, b.sum(picked, [0, 1])), b.const(float(rows)))
    b.add_output(loss)
    return b.build()


def rope(q_shape=(2, 4, 16, 8), k_shape=(2, 4, 16, 8)) -> Fusion:
    b = Builder()
    q, k = b.define_tensor(q_shape, BF16), b.define_tensor(k_shape, BF16)
    seq, dim = q_shape[-2:]
    cos, sin = b.define_tensor((seq, dim), BF16), b.define_tensor((seq, dim), BF16)
    for t in (q, k):
        half = dim // 2
        lead = list(t.shape[:-1])
        first = b.slice(t, [0] * t.rank, [*lead, half])
        second = b.slice(t, [0] * (t.rank - 1) + [half], [*lead, dim])
        rotated = b.op(Op.CAT, b.op(Op.NEG, second), first, dim=t.rank - 1)
        cos_b = b.bcast(cos, t.shape, [t.rank - 2, t.rank - 1])
        sin_b = b.bcast(sin, t.shape, [t.rank - 2, t.rank - 1])
        out = b.op(Op.ADD, b.op(Op.MUL, t, cos_b), b.op(Op.MUL, rotated, sin_b))
        b.add_output(b.cast(out, BF16))
    return b.build()


def cat_of_slices(shape=(16, 64), pieces: int = 4) -> Fusion:
    b = Builder()
    x = b.define_tensor(shape, F32)
    width = shape[1] // (2 * pieces)
    parts = [b.slice(x, [0, 2 * i * width], [shape[0], (2 * i + 1) * width]) for i in range(pieces)]
    b.add_output(b.op(Op.CAT, *parts, dim=1))
    return b.build()


def qk_norm(q_shape=(8, 4, 16), k_shape=(8, 2, 16)) -> Fusion:
    b = Builder()
    q, k = b.define_tensor(q_shape, BF16), b.define_tensor(k_shape, BF16)
    wq, wk = b.define_tensor(q_shape[-1:], BF16), b.define_tensor(k_shape[-1:], BF16)
    b.add_output(b.rms_norm(q, wq))
    b.add_output(b.rms_norm(k, wk))
    return b.build()


def matmul_gelu(m: int = 16, k: int = 32, n: int = 64) -> Fusion:
    b = Builder()
    a, w = b.define_tensor((m, k), F32), b.define_tensor((k, n), F32)
    h = b.op(Op.MATMUL, a, w)
    gelu = b.op(
        Op.MUL,
        b.op(Op.MUL, h, b.const(0.5)),
        b.op(Op.ADD, b.op(Op.ERF, b.op(Op.MUL, h, b.const(0.7071067811865476))), b.const(1.0)),
    )
    b.add_output(gelu)
    return b.build()


def column_normalize(shape=(64, 32)) -> Fusion:
    b = Builder()
    x = b.define_tensor(shape, F32, strides=(1, shape[0]))
    total = b.sum(x, [0])
    b.add_output(b.op(Op.DIV, x, b.bcast(total, shape, [1])))
    return b.build()


def layernorm_backward(shape=(24, 40)) -> Fusion:
    """grad-input (two row sums of the saved mean and rstd), grad-weight and grad-bias (column sums)."""
    b = Builder()
    grad, x = b.define_tensor(shape, DataType.BFloat16), b.define_tensor(shape, DataType.BFloat16)
    mean, rstd, weight = (
        b.define_tensor(shape[:1], DataType.Float),
        b.define_tensor(shape[:1], DataType.Float),
        b.define_tensor(shape[1:], DataType.BFloat16),
    )
    g, xf = b.cast(grad, DataType.Float), b.cast(x, DataType.Float)
    rstd_b = b.bcast(rstd, shape, [0])
    xhat = b.op(Op.MUL, b.op(Op.SUB, xf, b.bcast(mean, shape, [0])), rstd_b)
    gw = b.op(Op.MUL, g, b.cast(b.bcast(weight, shape, [1]), DataType.Float))
    n = b.const(float(shape[1]))
    a = b.bcast(b.sum(gw, (1,)), shape, [0])
    c = b.bcast(b.sum(b.op(Op.MUL, gw, xhat), (1,)), shape, [0])
    inner = b.op(Op.SUB, b.op(Op.SUB, b.op(Op.MUL, gw, n), a), b.op(Op.MUL, xhat, c))
    b.add_output(b.cast(b.op(Op.MUL, b.op(Op.DIV, rstd_b, n), inner), DataType.BFloat16))
    b.add_output(b.cast(b.sum(b.op(Op.MUL, g, xhat), (0,)), DataType.BFloat16))
    b.add_output(b.cast(b.sum(g, (0,)), DataType.BFloat16))
    return b.build()


def rmsnorm_backward(shape=(24, 40)) -> Fusion:
    """rstd recomputed from x (a row sum), grad-input (a second row sum) and grad-weight (a column sum)."""
    b = Builder()
    grad, x, weight = (
        b.define_tensor(shape, DataType.BFloat16),
        b.define_tensor(shape, DataType.BFloat16),
        b.define_tensor(shape[1:], DataType.BFloat16),
    )
    g, xf = b.cast(grad, DataType.Float), b.cast(x, DataType.Float)
    n = b.const(float(shape[1]))
    mean_sq = b.op(Op.DIV, b.bcast(b.sum(b.op(Op.MUL, xf, xf), (1,)), (shape[0], 1), [0]), n)
    rstd = b.bcast(b.op(Op.RSQRT, b.op(Op.ADD, mean_sq, b.const(1e-5))), shape, [0, 1])
    xhat = b.op(Op.MUL, xf, rstd)
    gw = b.op(Op.MUL, g, b.cast(b.bcast(weight, shape, [1]), DataType.Float))
    dot = b.op(Op.DIV, b.bcast(b.sum(b.op(Op.MUL, gw, xhat), (1,)), (shape[0], 1), [0]), n)
    inner = b.op(Op.SUB, gw, b.op(Op.MUL, xhat, b.bcast(dot, shape, [0, 1])))
    b.add_output(b.cast(b.op(Op.MUL, rstd, inner), DataType.BFloat16))
    b.add_output(b.cast(b.sum(b.op(Op.MUL, g, xhat), (0,)), DataType.BFloat16))
    return b.build()


def random_inputs(fusion: Fusion, seed: int = 0) -> list:
    """Fresh inputs for `fusion`: normal floats, small integers (valid as indices), random bools."""
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for name in fusion.inputs:
        value = fusion.value(name)
        if value.is_scalar:
            inputs.append(1.5 if value.dtype.is_float else 2)
            continue
        if value.dtype.is_float:
            data = torch.randn(value.shape, generator=generator, dtype=torch.float32)
        elif value.dtype is DataType.Bool:
            data = torch.rand(value.shape, generator=generator) > 0.5
        else:
            data = torch.randint(0, 2, value.shape, generator=generator)
        storage = torch.empty_strided(value.shape, value.strides, dtype=value.dtype.torch)
        inputs.append(storage.copy_(data))
    return inputs


def run_groups(fusion: Fusion, segmentation: Segmentation, inputs: list) -> list[torch.Tensor]:
    """Evaluates the groups one after another, each reading only what earlier groups (or the inputs) hold."""
    env = dict(zip(fusion.inputs, inputs, strict=True))
    aliases = {a.output: a for a in segmentation.aliases}
    values = fusion.value_map
    for group in segmentation.groups:
        missing = [name for name in group.inputs if name not in env]
        assert not missing, f"group {group.id} reads {missing} before any group wrote them"
        if group.kind is SchedulerKind.ALIAS:
            for name in group.outputs:
                a, source = aliases[name], env[aliases[name].input]
                env[name] = source.as_strided(a.shape, a.strides, source.storage_offset() + a.offset)
            continue
        used = {*group.inputs, *(n for e in group.exprs for n in (*e.inputs, *e.outputs))}
        sub = Fusion(
            tuple(v for v in fusion.values if v.name in used),
            group.inputs,
            group.exprs,
            tuple(Output(name) for name in group.outputs),
        )
        results = evaluate(sub, [env[name] for name in group.inputs])
        for name, result in zip(group.outputs, results, strict=True):
            env[name] = result.item() if values[name].is_scalar else result
    return [env[out.name] for out in fusion.outputs]
