"""FusionDefinition: old spellings build the fusion of the new ones; execute matches torch; errors guide."""

import re

import pytest
import torch

from hfuse import DataType, FusionDefinition
from hfuse.errors import DefinitionError, HfuseError, LimitError, UnsupportedError


def record(define) -> FusionDefinition:
    with FusionDefinition() as fd:
        define(fd)
    return fd


def rand(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.randn(*shape, dtype=dtype)
    return torch.randint(0, 5, shape, dtype=dtype)


X3 = [rand(2, 3, 4)]
X3_PAIR = [rand(2, 3, 4), rand(2, 3, 4)]


def _tensor3(fd):
    return fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)


def _out(fd, t):
    fd.add_output(t)


# (id, old spelling, new spelling, inputs)
SPELLINGS = [
    (
        "symbolic_sizes+contiguous",
        lambda fd: _out(
            fd,
            fd.define_tensor(
                symbolic_sizes=[-1, -1, -1], contiguous=[True, True, True], dtype=DataType.Float
            ),
        ),
        lambda fd: _out(fd, _tensor3(fd)),
        X3,
    ),
    (
        "contiguity-single-bool",
        lambda fd: _out(fd, fd.define_tensor([-1, 1, -1], True, DataType.Float)),
        lambda fd: _out(fd, fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True])),
        [rand(2, 1, 4)],
    ),
    (
        "positional-define_tensor",
        lambda fd: _out(
            fd, fd.define_tensor([-1, -1, -1], [True, True, True], DataType.Float, False, [2, 1, 0])
        ),
        lambda fd: _out(fd, _tensor3(fd)),
        X3,
    ),
    (
        "sizes-strides",
        lambda fd: _out(fd, fd.define_tensor([2, 3, 4], [12, 4, 1], DataType.Float)),
        lambda fd: _out(fd, _tensor3(fd)),
        X3,
    ),
    (
        "from_pytorch",
        lambda fd: _out(fd, fd.from_pytorch(X3[0])),
        lambda fd: _out(fd, _tensor3(fd)),
        X3,
    ),
    (
        "define_constant",
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), fd.define_constant(2.0))),
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), fd.define_scalar(2.0, dtype=DataType.Double))),
        X3,
    ),
    (
        "number-operand",
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), 2.0)),
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), fd.define_scalar(2.0))),
        X3,
    ),
    (
        "reshape-3-args",
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), [2, 3, 4], [6, 4])),
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), new_shape=[6, 4])),
        X3,
    ),
    (
        "reshape-original_shape-keyword",
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), original_shape=[2, 3, 4], new_shape=[6, -1])),
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), [6, 4])),
        X3,
    ),
    (
        "view",
        lambda fd: _out(fd, fd.ops.view(_tensor3(fd), original_shape=[2, 3, 4], new_shape=[24])),
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), new_shape=[24])),
        X3,
    ),
    (
        "squeeze-3-args",
        lambda fd: _out(fd, fd.ops.squeeze(fd.define_tensor([-1, 1, -1]), [2, 1, 4], [1])),
        lambda fd: _out(fd, fd.ops.squeeze(fd.define_tensor([-1, 1, -1]), dims=[1])),
        [rand(2, 1, 4)],
    ),
    (
        "sum-axes",
        lambda fd: _out(fd, fd.ops.sum(_tensor3(fd), axes=[2, 0], keepdim=False, dtype=DataType.Null)),
        lambda fd: _out(fd, fd.ops.sum(_tensor3(fd), dims=[0, 2])),
        X3,
    ),
    (
        "sum-int-dim",
        lambda fd: _out(fd, fd.ops.sum(_tensor3(fd), 2)),
        lambda fd: _out(fd, fd.ops.sum(_tensor3(fd), dims=[-1], keepdim=False)),
        X3,
    ),
    (
        "sum-dtype-only",
        lambda fd: _out(fd, fd.ops.sum(_tensor3(fd), DataType.Double)),
        lambda fd: _out(fd, fd.ops.sum(_tensor3(fd), dims=[0, 1, 2], dtype=DataType.Double)),
        X3,
    ),
    (
        "var_mean-axes",
        lambda fd: [_out(fd, t) for t in fd.ops.var_mean(_tensor3(fd), axes=[1], correction=0)],
        lambda fd: [
            _out(fd, t) for t in fd.ops.var_mean(_tensor3(fd), dims=[1], correction=0, keepdim=False)
        ],
        X3,
    ),
    (
        "broadcast_in_dim-output_shape",
        lambda fd: _out(
            fd, fd.ops.broadcast_in_dim(fd.define_tensor([-1]), output_shape=[3, 4], broadcast_dims=[1])
        ),
        lambda fd: _out(
            fd, fd.ops.broadcast_in_dim(fd.define_tensor([-1]), shape=[3, 4], broadcast_dims=[1])
        ),
        [rand(4)],
    ),
    (
        "full-size-arg",
        lambda fd: _out(fd, fd.ops.full(size=[2, 3], arg=fd.define_scalar(1.5), dtype=DataType.Float)),
        lambda fd: _out(
            fd, fd.ops.full(shape=[2, 3], fill_value=fd.define_scalar(1.5), dtype=DataType.Float)
        ),
        [],
    ),
    (
        "slice-without-strides",
        lambda fd: _out(fd, fd.ops.slice(_tensor3(fd), [0, 1, 0], [2, 3, 2])),
        lambda fd: _out(
            fd,
            fd.ops.slice(
                _tensor3(fd),
                start_indices=[0, 1, 0],
                end_indices=[2, 3, 2],
                strides=[1, 1, 1],
                manual_normalization=False,
            ),
        ),
        X3,
    ),
    (
        "slice-negative-indices",
        lambda fd: _out(fd, fd.ops.slice(_tensor3(fd), [0, -2, 0], [2, 100, -2])),
        lambda fd: _out(fd, fd.ops.slice(_tensor3(fd), [0, 1, 0], [2, 3, 2])),
        X3,
    ),
    (
        "add_alpha",
        lambda fd: _out(fd, fd.ops.add_alpha(_tensor3(fd), _tensor3(fd), fd.define_scalar(0.5))),
        lambda fd: (lambda a, b, s: _out(fd, fd.ops.add(a, fd.ops.mul(b, s))))(
            _tensor3(fd), _tensor3(fd), fd.define_scalar(0.5)
        ),
        X3_PAIR,
    ),
    (
        "operators",
        lambda fd: (lambda a, b: _out(fd, -abs(a + b * 2.0 - a / b)))(_tensor3(fd), _tensor3(fd)),
        lambda fd: (
            lambda a, b: _out(
                fd, fd.ops.neg(fd.ops.abs(fd.ops.sub(fd.ops.add(a, fd.ops.mul(b, 2.0)), fd.ops.div(a, b))))
            )
        )(_tensor3(fd), _tensor3(fd)),
        X3_PAIR,
    ),
    (
        "reflected-operators",
        lambda fd: (lambda a: _out(fd, (1.0 - a) ** 2 + (2 / a)))(_tensor3(fd)),
        lambda fd: (lambda a: _out(fd, fd.ops.add(fd.ops.pow(fd.ops.sub(1.0, a), 2), fd.ops.div(2, a))))(
            _tensor3(fd)
        ),
        X3,
    ),
    (
        "comparison-operators",
        lambda fd: (lambda a, b: _out(fd, (a < b) | (a >= 1.0)))(_tensor3(fd), _tensor3(fd)),
        lambda fd: (lambda a, b: _out(fd, fd.ops.bitwise_or(fd.ops.lt(a, b), fd.ops.ge(a, 1.0))))(
            _tensor3(fd), _tensor3(fd)
        ),
        X3_PAIR,
    ),
    (
        "define_vector-list",
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), fd.define_vector([6, 4], dtype=DataType.Int))),
        lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), [6, 4])),
        X3,
    ),
    (
        "define_vector-size",
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), fd.define_vector(2)[1])),
        lambda fd: (lambda t, s0, s1: _out(fd, fd.ops.mul(t, s1)))(
            _tensor3(fd), fd.define_scalar(None, dtype=DataType.Int), fd.define_scalar(DataType.Int)
        ),
        [*X3, 3, 5],
    ),
    (
        "cast-positional",
        lambda fd: _out(fd, fd.ops.cast(_tensor3(fd), DataType.Half)),
        lambda fd: _out(fd, fd.ops.cast(_tensor3(fd), dtype=DataType.Half)),
        X3,
    ),
]


@pytest.mark.parametrize(("old", "new", "inputs"), [c[1:] for c in SPELLINGS], ids=[c[0] for c in SPELLINGS])
def test_old_spelling_gives_the_fusion_of_the_new(old, new, inputs):
    assert record(old).fusion(inputs) == record(new).fusion(inputs)


def test_old_spelling_changes_the_fusion_when_it_means_something_else():
    reshaped = record(lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), [2, 3, 4], [4, 6])))
    other = record(lambda fd: _out(fd, fd.ops.reshape(_tensor3(fd), [6, 4])))
    assert reshaped.fusion(X3) != other.fusion(X3)


class Subclassed(FusionDefinition):
    def definition(self):
        t0 = self.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        self.add_output(self.ops.relu(t0))


def nvfuser_fusion_id0(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.relu(t0))


def test_subclass_and_function_styles_build_the_same_fusion():
    x = [rand(3, 5)]
    with FusionDefinition() as fd:
        nvfuser_fusion_id0(fd)
    subclassed = Subclassed()
    (out,) = subclassed.execute(x, backend="eager")
    torch.testing.assert_close(out, torch.relu(x[0]))
    assert subclassed.fusion(x) == fd.fusion(x)


def _seed(fd):
    t0 = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[True, True, True], dtype=DataType.Float)
    for i in range(3):
        t1 = fd.ops.slice(t0, [0, 0, 64 * i], [2, 8, 64 * (i + 1)], [1, 1, 1])
        t2 = fd.ops.reshape(t1, [2, 8, 64], [2, 8, 4, 16])
        fd.add_output(fd.ops.permute(t2, [0, 2, 1, 3]))


def _seed_torch(x):
    return [x[:, :, 64 * i : 64 * (i + 1)].reshape(2, 8, 4, 16).permute(0, 2, 1, 3) for i in range(3)]


def _normalize(fd):
    x = fd.define_tensor([-1, -1])
    var, mean = fd.ops.var_mean(x, dims=[1], correction=0)
    mean_b = fd.ops.broadcast_in_dim(mean, shape=fd.ops.shape(x), broadcast_dims=[0])
    var_b = fd.ops.broadcast_in_dim(var, shape=[x.size(0), x.size(1)], broadcast_dims=[0])
    fd.add_output((x - mean_b) * fd.ops.rsqrt(var_b + 1e-5))


def _normalize_torch(x):
    var, mean = torch.var_mean(x, dim=1, correction=0, keepdim=True)
    return [(x - mean) * torch.rsqrt(var + 1e-5)]


def _shape_scalars(fd):
    x = fd.define_tensor([-1, -1, -1])
    rows = fd.define_scalar(None, dtype=DataType.Int)
    scale = fd.define_scalar(None, dtype=DataType.Double)
    fd.add_output(fd.ops.reshape(x, [rows, -1]) * scale)
    fd.add_output(fd.ops.full([rows * 2], 3, DataType.Int))


def _creation_and_resize(fd):
    x = fd.define_tensor([-1, -1], dtype=DataType.Float)
    padded = fd.ops.pad(x, [1, 2])
    ramp = fd.ops.iota(padded.size(1), dtype=DataType.Float)
    joined = fd.ops.cat([padded, fd.ops.broadcast_in_dim(ramp, [1, 7], [1])], dim=0)
    fd.add_output(fd.ops.where(joined > 0.0, joined, fd.ops.cast(joined, DataType.Double) * 2))


def _creation_and_resize_torch(x):
    padded = torch.nn.functional.pad(x, [1, 2])
    joined = torch.cat([padded, torch.arange(7, dtype=torch.float32)[None]], dim=0)
    return [torch.where(joined > 0, joined.double(), joined.double() * 2)]


def _matmul_and_indexing(fd):
    a = fd.define_tensor([-1, -1])
    w = fd.define_tensor([-1, -1])
    index = fd.define_tensor([-1], dtype=DataType.Int)
    fd.add_output(fd.ops.linear(a, w))
    fd.add_output(fd.ops.index_select(fd.ops.matmul(a, fd.ops.permute(w, [1, 0])), index, 0))
    fd.add_output(fd.ops.sum(a, dims=[-1], keepdim=True, dtype=DataType.Double))


def _scans_and_sorts(fd):
    x = fd.define_tensor([-1, -1])
    k = fd.define_scalar(DataType.Int)
    fd.add_output(fd.ops.cumsum(x, dim=1))
    values, _ = fd.ops.topk(x, k, dim=-1, largest=True, sorted=True)
    fd.add_output(values)
    avg, var_sum, _ = fd.ops.welford(x, [1])
    fd.add_output(avg)
    fd.add_output(var_sum)
    fd.add_output(fd.ops.max(x, 0))
    fd.add_output(k * 2)


def _scans_and_sorts_torch(x, k):
    var, mean = torch.var_mean(x, dim=1, correction=0)
    return [x.cumsum(1), x.topk(k, -1).values, mean, var * x.shape[1], x.amax(0), torch.tensor(k * 2)]


A, W, INDEX = rand(4, 3), rand(5, 3), torch.tensor([3, 0, 0])

# (id, definition, inputs, torch reference)
EXECUTIONS = [
    ("seed-qkv-split", _seed, [rand(2, 8, 192)], _seed_torch),
    ("normalization", _normalize, [rand(3, 6)], _normalize_torch),
    (
        "shape-scalars",
        _shape_scalars,
        [rand(2, 3, 4), 6, 0.5],
        lambda x, rows, scale: [x.reshape(rows, -1) * scale, torch.full([12], 3, dtype=torch.int64)],
    ),
    ("creation-and-resize", _creation_and_resize, [rand(3, 4)], _creation_and_resize_torch),
    (
        "matmul-and-indexing",
        _matmul_and_indexing,
        [A, W, INDEX],
        lambda a, w, index: [a @ w.T, (a @ w.T)[index], a.double().sum(-1, keepdim=True)],
    ),
    ("scans-sorts-scalar-output", _scans_and_sorts, [rand(3, 5), 2], _scans_and_sorts_torch),
    (
        "integer-operators",
        lambda fd: fd.add_output((fd.define_tensor([-1], dtype=DataType.Int) << 2) % 3),
        [torch.arange(6)],
        lambda x: [(x << 2) % 3],
    ),
]


@pytest.mark.parametrize(
    ("define", "inputs", "expected"), [c[1:] for c in EXECUTIONS], ids=[c[0] for c in EXECUTIONS]
)
def test_execute_eager_matches_torch(define, inputs, expected):
    outputs = record(define).execute(inputs, backend="eager", capture_debug_output=True, print_repro=False)
    reference = expected(*inputs)
    assert len(outputs) == len(reference)
    for got, want in zip(outputs, reference, strict=True):
        torch.testing.assert_close(got, want, check_dtype=True)


def test_alias_input_output_is_written_into_the_input():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1])
        fd.add_output(x * 2.0, alias_input=x)
    given = torch.arange(4.0)
    fd.execute([given], backend="eager")
    torch.testing.assert_close(given, torch.arange(4.0) * 2)


def test_recording_more_calls_than_the_limit_raises(monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_OPS", "3")
    with FusionDefinition() as fd:
        x = fd.ops.exp(_tensor3(fd))
        fd.ops.exp(x)
        with pytest.raises(LimitError, match="more than 3 calls; raise HFUSE_MAX_OPS"):
            fd.ops.exp(x)


def test_symbolic_extents_and_strides_come_from_the_inputs():
    fd = record(lambda fd: _out(fd, fd.ops.exp(_tensor3(fd))))
    strided = rand(4, 3, 2).permute(2, 1, 0)
    fusion = fd.fusion([strided])
    assert fusion.value("T0").shape == (2, 3, 4)
    assert fusion.value("T0").strides == (1, 2, 6)
    assert fd.fusion([rand(2, 3, 4).permute(2, 1, 0).contiguous().permute(2, 1, 0)]) is fusion
    assert fd.fusion([rand(2, 3, 5)]) is not fusion


def test_static_definition_builds_without_inputs_in_its_stride_order():
    fd = record(lambda fd: _out(fd, fd.define_tensor([2, 3, 4], [True, True, True], stride_order=[0, 2, 1])))
    assert fd.fusion().value("T0").strides == (1, 8, 2)


def test_shape_scalar_values_are_part_of_the_cache_key():
    fd = record(_shape_scalars)
    x = rand(2, 3, 4)
    first = fd.fusion([x, 6, 0.5])
    assert fd.fusion([x, 6, 0.25]) is first
    assert fd.fusion([x, 4, 0.5]).value("T1").shape == (4, 6)


def test_handles_know_their_rank_and_extents():
    with FusionDefinition() as fd:
        x = fd.define_tensor([-1, -1, 1])
        extents = fd.ops.shape(x)
        sizes = fd.ops.tensor_sizes(x)
        assert (x.ndim, len(extents), len(sizes)) == (3, 3, 3)
        assert fd.ops.sum(x, [0, 2]).ndim == 1
        assert fd.ops.matmul(x, fd.define_tensor([-1])).ndim == 2
        reshaped = fd.ops.reshape(x, [extents[2], fd.ops.at(extents, 0), sizes[1]])
        fd.add_output(reshaped)
    fusion = fd.fusion([rand(2, 5, 1), rand(1)])
    assert fusion.value(reshaped.name).shape == (1, 2, 5)


def test_repr_prints_the_recorded_definition():
    text = repr(record(_seed))
    assert (
        "T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float"
        in text
    )
    assert "T1 = fd.ops.slice(T0, start_indices=[0, 0, 0], end_indices=[2, 8, 64], strides=[1, 1, 1])" in text
    assert "T2 = fd.ops.reshape(T1, new_shape=[2, 8, 4, 16])" in text
    assert "fd.add_output(T3)" in text


def test_inputs_outputs_and_fusion_ir():
    fd = record(_seed)
    assert [t.name for t in fd.inputs()] == ["T0"]
    assert [t.name for t in fd.outputs()] == ["T3", "T6", "T9"]
    assert "shape=[2, 8, 192]" in fd.fusion_ir([rand(2, 8, 192)])


def test_validate_against_given_reference_outputs():
    fd = record(lambda fd: _out(fd, fd.ops.sigmoid(_tensor3(fd))))
    x = rand(2, 3, 4)
    fd.validate([x], [torch.sigmoid(x)], backend="eager")
    with pytest.raises(HfuseError, match=r"output 0 \(T1\) differs from the reference"):
        fd.validate([x], [torch.sigmoid(x) + 1], backend="eager")


def test_validate_scales_the_tolerance_by_the_terms_as_the_runtime_does():
    """exp(exp(x)) amplifies a rounding of the inner exp by exp(x), about 80 here: a result rounded
    otherwise on the way passes, as the runtime's validation lets it; one 1% off does not."""
    fd = record(lambda fd: _out(fd, fd.ops.exp(fd.ops.exp(_tensor3(fd)))))
    x = torch.linspace(3.5, 4.4, 24).reshape(2, 3, 4)
    inner = torch.exp(x)
    rounded = torch.exp(torch.nextafter(torch.nextafter(inner, inner + 1), inner + 1))
    fd.validate([x], [rounded], backend="eager")
    with pytest.raises(HfuseError, match=r"output 0 \(T2\) differs from the reference"):
        fd.validate([x], [rounded * 1.01], backend="eager")


def test_source_locations_reach_build_errors():
    with FusionDefinition() as fd:
        fd._loc = (3, 4)
        x = _tensor3(fd)
        fd._loc = (7, 9)
        fd.add_output(fd.ops.reshape(x, [5, 5]))
    with pytest.raises(
        DefinitionError, match=r"line 7, column 9: reshape: new_shape \[5, 5\] has 25 elements"
    ):
        fd.fusion(X3)


def _wrong(call):
    def define(fd):
        call(fd, _tensor3(fd))

    return define


# (id, definition, inputs, error type, message)
ERRORS = [
    (
        "input-count",
        lambda fd: _out(fd, _tensor3(fd)),
        [],
        DefinitionError,
        r"the definition has 1 inputs \(T0\) but 0 values were given",
    ),
    (
        "input-dtype",
        lambda fd: _out(fd, _tensor3(fd)),
        [rand(2, 3, 4, dtype=torch.float16)],
        DefinitionError,
        r"input 0 \(T0\): expected a Float tensor of rank 3, got a torch.float16 tensor of shape \[2, 3, 4\]",
    ),
    (
        "input-rank",
        lambda fd: _out(fd, _tensor3(fd)),
        [rand(2, 3)],
        DefinitionError,
        "expected a Float tensor of rank 3",
    ),
    (
        "static-extent",
        lambda fd: _out(fd, fd.define_tensor([2, 3, 5])),
        X3,
        DefinitionError,
        r"dim 2 is declared with extent 5, got a tensor of shape \[2, 3, 4\]",
    ),
    (
        "scalar-input",
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), fd.define_scalar(None, dtype=DataType.Int))),
        [*X3, "2"],
        DefinitionError,
        r"input 1 \(S0\): expected a Int scalar \(a Python number\)",
    ),
    (
        "scalar-input-beyond-its-dtype",
        lambda fd: _out(fd, fd.ops.mul(_tensor3(fd), fd.define_scalar(None, dtype=DataType.Int32))),
        [*X3, 2**31],
        DefinitionError,
        r"input 1 \(S0\): 2147483648 does not fit DataType.Int32, which holds -2147483648 to 2147483647",
    ),
    (
        "negative-strides",
        lambda fd: _out(fd, fd.define_tensor(sizes=[2, 3], strides=[3, -1])),
        [],
        DefinitionError,
        r"fd.define_tensor: sizes \[2, 3\] and strides \[3, -1\] must be 0 or more; .*torch.flip",
    ),
    (
        "symbolic-without-inputs",
        lambda fd: _out(fd, _tensor3(fd)),
        None,
        DefinitionError,
        r"input T0 has symbolic extents \[-1, -1, -1\]: pass the input tensors",
    ),
    (
        "shape-scalar-without-inputs",
        lambda fd: _out(fd, fd.ops.full([fd.define_scalar(None, dtype=DataType.Int)], 1.0, DataType.Float)),
        None,
        DefinitionError,
        "S0 is a symbolic scalar used as a shape argument of full",
    ),
    (
        "random-op-seed-alone",
        _wrong(lambda fd, x: fd.ops.rand_like(x, rng_seed=fd.define_scalar(None, dtype=DataType.Int))),
        X3,
        DefinitionError,
        "fd.ops.rand_like: rng_seed and rng_offset must be given together, or neither",
    ),
    (
        "uniform-integer-dtype",
        lambda fd: _out(fd, fd.ops.uniform(0.0, 1.0, [2], dtype=DataType.Int)),
        [],
        DefinitionError,
        "uniform: dtype Int is not allowed; random values are one of Float, Double, Half, BFloat16",
    ),
    (
        "unknown-op",
        _wrong(lambda fd, x: fd.ops.grouped_mm(x, x, x)),
        X3,
        UnsupportedError,
        "fd.ops.grouped_mm is not supported by hfuse",
    ),
    (
        "reshape-original-rank",
        _wrong(lambda fd, x: fd.ops.reshape(x, [2, 12], [24])),
        X3,
        DefinitionError,
        r"original_shape \[2, 12\] has 2 entries but T0 has rank 3",
    ),
    (
        "wrong-keyword",
        _wrong(lambda fd, x: fd.ops.reshape(x, shape=[24])),
        X3,
        DefinitionError,
        r"fd.ops.reshape: missing a required argument: 'new_shape' \(did you mean new_shape= for shape=\?\); "
        r"it takes fd.ops.reshape\(x, new_shape\)",
    ),
    (
        "both-spellings",
        lambda fd: fd.define_tensor(shape=[2], symbolic_sizes=[2]),
        [],
        DefinitionError,
        "both symbolic_sizes= and shape= given",
    ),
    (
        "contiguity-length",
        lambda fd: fd.define_tensor([2, 3], [True]),
        [],
        DefinitionError,
        r"contiguity must be one True/False/None per dim \(2 for shape \[2, 3\]\)",
    ),
    (
        "operand-type",
        _wrong(lambda fd, x: fd.ops.add(x, "1")),
        X3,
        DefinitionError,
        "fd.ops.add: operand 1 must be a Tensor, a Scalar or a number, got str '1'",
    ),
    ("truth-value", _wrong(lambda fd, x: bool(x > 0)), X3, DefinitionError, "T1 has no truth value"),
    ("no-outputs", lambda fd: _tensor3(fd), X3, DefinitionError, "the definition has no outputs"),
    (
        "manual-padding",
        _wrong(lambda fd, x: fd.ops.cat([x, x], 0, manual_padding=True)),
        X3,
        UnsupportedError,
        "manual_padding=True",
    ),
]


@pytest.mark.parametrize(
    ("define", "inputs", "error", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS]
)
def test_definition_errors_say_what_to_do(define, inputs, error, message):
    with pytest.raises(error, match=message):
        record(define).fusion(inputs)


# (value, dtype, whether define_scalar keeps it): the bounds of each integer dtype, as torch.iinfo gives them
CONSTANT_RANGES = [
    (2**63 - 1, DataType.Int, True),
    (-(2**63), DataType.Int, True),
    (2**63, DataType.Int, False),
    (-(2**63) - 1, DataType.Int, False),
    (1e30, DataType.Int, False),
    (-1e30, DataType.Index, False),
    (2**31 - 1, DataType.Int32, True),
    (2**31, DataType.Int32, False),
    (-(2**31) - 1, DataType.Int32, False),
    (2**64 - 1, DataType.UInt64, True),
    (2**64, DataType.UInt64, False),
    (-1, DataType.UInt64, False),
    (10**400, DataType.Double, False),
]


@pytest.mark.parametrize(
    "value, dtype, kept", CONSTANT_RANGES, ids=[f"{str(v)[:8]}-{d.name}" for v, d, _ in CONSTANT_RANGES]
)
def test_a_constant_must_fit_its_dtype(value, dtype, kept):
    def define(fd):
        fd.add_output(fd.define_scalar(value, dtype=dtype))

    if kept:
        (constant,) = [v for v in record(define).fusion().values if v.const is not None]
        assert constant.const == value and constant.dtype is dtype
        return
    with pytest.raises(
        DefinitionError,
        match=f"define_scalar: {re.escape(repr(value))} (does not fit|is beyond the range of) ",
    ):
        record(define)


def test_handles_of_another_definition_are_refused():
    other = record(lambda fd: _out(fd, _tensor3(fd)))
    with (
        FusionDefinition() as fd,
        pytest.raises(DefinitionError, match="T0 belongs to another FusionDefinition"),
    ):
        fd.ops.neg(other.inputs()[0])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda fd: fd.profile(), r"call fd.execute\(inputs, profile=True\) first"),
        (lambda fd: fd.last_triton_code(), "call fd.execute\\(inputs\\) with the hfuse backend first"),
        (lambda fd: fd.segmentation(), "no compiled run yet"),
        (lambda fd: fd.execute(X3, backend="eager", optimize=True), "fd.execute: unknown keyword optimize"),
    ],
    ids=["profile", "last_triton_code", "segmentation", "execute-keyword"],
)
def test_inspection_before_a_compiled_run_raises(call, message):
    fd = record(lambda fd: _out(fd, _tensor3(fd)))
    fd.execute(X3, backend="eager")
    with pytest.raises(HfuseError, match=message):
        call(fd)


def test_a_cpu_scalar_tensor_goes_to_the_device_the_kernels_run_on(monkeypatch):
    """nvFuser's `is_cpu` scalar beside GPU tensors: moved to the run device for every backend, so an output
    made from it alone lands there too (without a GPU, shown with the meta device standing in for one)."""
    import hfuse.runtime.device

    scalar = torch.tensor(2.0)
    with FusionDefinition() as fd:
        t0 = fd.from_pytorch(scalar)
        fd.add_output(fd.ops.add(t0, fd.define_scalar(3.0)))
    assert fd.execute([scalar], backend="eager")[0].item() == 5.0
    run_device = "cuda" if torch.cuda.is_available() else "meta"
    if run_device == "meta":
        monkeypatch.setattr(hfuse.runtime.device, "run_device", lambda: torch.device("meta"))
    (out,) = fd.execute([scalar], backend="eager")
    assert out.device.type == run_device and scalar.device.type == "cpu"
