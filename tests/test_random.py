"""Random ops: Philox-4x32-10 streams as nvFuser defines them, the same in generated kernels and in the torch
reference, on every backend and every run, whatever the segmenter makes of the fusion."""

from __future__ import annotations

import pytest
import torch

from hfuse import DataType, DefinitionError, FusionDefinition, load
from hfuse.builder import FusionBuilder
from hfuse.ir import Op
from hfuse.ops.philox import philox4x32
from hfuse.printer import print_fusion
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.runtime.bytes import segment_bytes
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind
from hfuse.tolerance import assert_close

F32, F64, F16, BF16 = DataType.Float, DataType.Double, DataType.Half, DataType.BFloat16

pytestmark = pytest.mark.usefixtures("fresh_cache")


# Random123's known-answer tests (kat_vectors): counter words, key words -> the four output words
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize("counter, key, expected", KNOWN_ANSWERS, ids=["zeros", "ones", "pi"])
def test_philox_gives_random123s_known_answers(counter, key, expected):
    words = philox4x32(tuple(torch.tensor([c]) for c in counter), key)
    assert tuple(w.item() for w in words) == expected


def _random(op: str, shape, dtype: DataType, params, stream=None, symbolic: bool = False) -> FusionDefinition:
    """One random op, its result the output. `stream` (seed, offset) constants, or symbolic inputs."""
    with FusionDefinition() as fd:
        if symbolic:
            params = [fd.define_scalar(None, dtype=DataType.Double) for _ in params]
            stream = [fd.define_scalar(None, dtype=DataType.Int) for _ in stream]
        seed, offset = stream if stream is not None else (None, None)
        fd.add_output(getattr(fd.ops, op)(*params, shape, rng_seed=seed, rng_offset=offset, dtype=dtype))
    return fd


def _run(fd: FusionDefinition, inputs, backend: str) -> torch.Tensor:
    return fd.execute(inputs, backend=backend)[0]


# (id, op, shape, dtype, params, (seed, offset))
KERNEL_CASES = [
    ("uniform-f32-odd", "uniform", [5, 9], F32, (0.0, 1.0), (0, 0)),
    ("uniform-f32-programs", "uniform", [3, 1030], F32, (0.0, 1.0), (2**40 + 7, 5)),
    ("uniform-f32-range", "uniform", [37], F32, (-2.5, 0.75), (11, 2**33 + 3)),
    ("uniform-f32-negative-seed", "uniform", [2, 3, 5], F32, (0.0, 1.0), (-12345, 2)),
    ("uniform-f32-scalar", "uniform", [], F32, (0.0, 1.0), (3, 0)),
    ("uniform-f64", "uniform", [3, 1030], F64, (0.0, 1.0), (3, 1)),
    ("uniform-f64-range", "uniform", [7], F64, (0.3, 1.7), (8, 9)),
    ("uniform-f16", "uniform", [2049], F16, (0.0, 1.0), (99, 7)),
    ("uniform-bf16-range", "uniform", [4, 257], BF16, (1.0, 3.0), (5, 0)),
    ("normal-f32", "normal", [3, 1030], F32, (0.0, 1.0), (21, 4)),
    ("normal-f32-params", "normal", [5, 9], F32, (2.0, 0.5), (0, 0)),
    ("normal-f64-odd", "normal", [7], F64, (0.0, 1.0), (1, 2)),
    ("normal-f64-params", "normal", [2, 33], F64, (-1.0, 3.0), (2**50, 3)),
    ("normal-f16", "normal", [2049], F16, (0.0, 1.0), (4, 4)),
    ("normal-bf16-params", "normal", [4, 257], BF16, (0.5, 2.0), (6, 6)),
]


@pytest.mark.parametrize("symbolic", [False, True], ids=["constants", "symbolic-inputs"])
@pytest.mark.parametrize(
    "op, shape, dtype, params, stream", [c[1:] for c in KERNEL_CASES], ids=[c[0] for c in KERNEL_CASES]
)
def test_generated_kernels_draw_what_the_reference_draws(op, shape, dtype, params, stream, symbolic, device):
    fd = _random(op, shape, dtype, params, stream, symbolic)
    inputs = [*params, *stream] if symbolic else []
    got, expected = _run(fd, inputs, "hfuse"), _run(fd, inputs, "eager")
    assert got.dtype == dtype.torch and list(got.shape) == shape
    # Uniform values are bitwise the reference's. Normal values go through log, sqrt, sin and cos, which may
    # differ by an ulp between torch and Triton; on a GPU, Triton may contract low + span * u into an fma.
    if op == "uniform" and (device == "cpu" or params == (0.0, 1.0)):
        assert torch.equal(got, expected)
    else:
        assert_close(got, expected)


@pytest.mark.parametrize("op", ["uniform", "normal"])
def test_every_backend_and_every_run_draw_the_same_numbers(op, device):
    fd = _random(op, [6, 35], F16, (0.0, 1.0), symbolic=False, stream=(77, 3))
    kernels = [_run(fd, [], backend) for backend in ("hfuse", "naive", "hfuse", "naive")]
    assert all(torch.equal(run, kernels[0]) for run in kernels)
    reference = _run(fd, [], "eager")
    if op == "uniform" or device == "cpu":
        assert torch.equal(reference, kernels[0])
    else:  # a GPU's log, sin and cos in Triton and in torch may differ by an ulp
        assert_close(kernels[0], reference)


def test_seeds_and_offsets_pick_different_streams():
    fd = _random("uniform", [64], F32, (0.0, 1.0), stream=(0, 0), symbolic=True)
    draws = {key: _run(fd, [0.0, 1.0, *key], "hfuse") for key in [(5, 0), (5, 1), (6, 0), (5, 2**32)]}
    for a in draws:
        for b in draws:
            if a != b:
                assert (draws[a] != draws[b]).float().mean() > 0.9, f"{a} and {b} draw alike"


def _stream_inputs(b: FusionBuilder, shape: list[int]):
    """x, a seed input, the constants 0 and 1, and the offsets 0 and 1."""
    x, seed = b.define_tensor(shape, F32), b.define_scalar(DataType.Int)
    zero, one = b.define_scalar(F64, const=0.0), b.define_scalar(F64, const=1.0)
    return x, seed, zero, one, [b.define_scalar(DataType.Int, const=k) for k in (0, 1)]


def _dropout_and_noise(b: FusionBuilder) -> list:
    """A dropout of x (uniform, lt, where, scale) plus gaussian noise with the same seed, transposed and
    summed over rows: hfuse draws both in a reduction kernel, naive in kernels of their own."""
    x, seed, zero, one, offsets = _stream_inputs(b, [24, 40])
    (u,) = b.add(Op.UNIFORM, [zero, one, seed, offsets[0]], {"shape": (24, 40), "dtype": F32})
    (keep,) = b.add(Op.LT, [u, b.define_scalar(F64, const=0.8)])
    (kept,) = b.add(Op.WHERE, [keep, x, zero])
    (dropped,) = b.add(Op.MUL, [kept, b.define_scalar(F64, const=1.25)])
    (noise,) = b.add(Op.NORMAL, [zero, one, seed, offsets[1]], {"shape": (24, 40)})
    (noisy,) = b.add(Op.ADD, [dropped, noise])
    (transposed,) = b.add(Op.PERMUTE, [noisy], {"dims": (1, 0)})
    (total,) = b.add(Op.SUM, [noisy], {"dims": (1,)})
    return [dropped, transposed, total]


def _transposed_mask(b: FusionBuilder) -> list:
    """x masked by a uniform tensor, transposed: the uniform is drawn at the indices of 2-D tiles."""
    x, seed, zero, one, offsets = _stream_inputs(b, [33, 65])
    (u,) = b.add(Op.UNIFORM, [zero, one, seed, offsets[1]], {"shape": (33, 65), "dtype": F32})
    (keep,) = b.add(Op.LT, [u, b.define_scalar(F64, const=0.5)])
    (masked,) = b.add(Op.WHERE, [keep, x, zero])
    return [b.add(Op.PERMUTE, [masked], {"dims": (1, 0)})[0]]


def _normalized_noise(b: FusionBuilder) -> list:
    """Noise added before a row max that is broadcast back: the normal op is drawn in a normalization."""
    x, seed, zero, _, offsets = _stream_inputs(b, [8, 300])
    std = b.define_scalar(F64, const=0.1)
    (noise,) = b.add(Op.NORMAL, [zero, std, seed, offsets[0]], {"shape": (8, 300)})
    (noisy,) = b.add(Op.ADD, [x, noise])
    (peak,) = b.add(Op.MAX, [noisy], {"dims": (1,), "keepdim": True})
    (wide,) = b.add(Op.EXPAND, [peak], {"shape": (8, 300)})
    return [b.add(Op.SUB, [noisy, wide])[0]]


# (build, the kind of kernel that draws the random values under hfuse)
CUTS = [
    (_dropout_and_noise, SchedulerKind.REDUCTION),
    (_transposed_mask, SchedulerKind.TRANSPOSE),
    (_normalized_noise, SchedulerKind.NORMALIZATION),
]


@pytest.mark.parametrize("backend", ["hfuse", "naive"])
@pytest.mark.parametrize("build, kind", CUTS, ids=["reduction", "transpose", "normalization"])
def test_the_stream_does_not_depend_on_how_the_fusion_is_cut(build, kind, backend, device):
    b = FusionBuilder()
    for out in build(b):
        b.add_output(out)
    fusion = b.build()
    inputs = [torch.randn(fusion.value(fusion.inputs[0]).shape, device=device), 2**35 + 1]
    outputs, _, compiled = execute(fusion, inputs, backend=backend)  # validated against the reference
    if backend == "hfuse":
        drawing = [
            g.kind for g in compiled.segmentation.groups for e in g.exprs if e.op in (Op.UNIFORM, Op.NORMAL)
        ]
        assert set(drawing) == {kind}
    if build is not _normalized_noise:  # a uniform mask decides the first output: it is exact
        assert torch.equal(outputs[0], evaluate(fusion, inputs)[0])


def test_random_kernels_read_nothing_and_write_their_result():
    b = FusionBuilder()
    zero, one = b.define_scalar(F64, const=0.0), b.define_scalar(F64, const=1.0)
    seed, offset = b.define_scalar(DataType.Int), b.define_scalar(DataType.Int)
    (u,) = b.add(Op.UNIFORM, [zero, one, seed, offset], {"shape": (8, 16), "dtype": BF16})
    b.add_output(u)
    fusion = b.build()
    (group,) = segment(fusion).groups
    assert group.kind is SchedulerKind.POINTWISE
    assert segment_bytes(fusion, group) == (0, 8 * 16 * 2)


# ---- random ops given no seed ------------------------------------------------------------------------


def _unseeded() -> FusionDefinition:
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(x, fd.ops.rand_like(x)))
        fd.add_output(fd.ops.randn_like(x))
    return fd


def _seeded_twin() -> FusionDefinition:
    """The same ops with the seed as an input and the offsets nvFuser would give them: 0, then 1."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        seed = fd.define_scalar(None, dtype=DataType.Int)
        shape = fd.ops.shape(x)
        fd.add_output(fd.ops.mul(x, fd.ops.uniform(0.0, 1.0, shape, rng_seed=seed, rng_offset=0)))
        fd.add_output(fd.ops.normal(0.0, 1.0, shape, rng_seed=seed, rng_offset=1))
    return fd


@pytest.mark.parametrize("backend", ["hfuse", "naive", "eager"])
def test_ops_given_no_seed_draw_one_from_torch_at_each_call(backend, device):
    fd, x = _unseeded(), torch.randn(9, 70, device=device)
    torch.manual_seed(1)
    first, second = fd.execute([x], backend=backend), fd.execute([x], backend=backend)
    assert not torch.equal(first[0], second[0]) and not torch.equal(first[1], second[1])
    torch.manual_seed(1)
    again = fd.execute([x], backend=backend)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    torch.manual_seed(1)
    seed = int(torch.randint(0, 2**63 - 1, ()).item())
    twin = _seeded_twin().execute([x, seed], backend=backend)
    assert all(torch.equal(a, b) for a, b in zip(first, twin, strict=True))


def test_a_drawn_seed_can_be_given_and_validation_compares_like_with_like(device):
    fd, x = _unseeded(), torch.randn(4, 5, device=device)
    fd.validate([x])  # the reference and the run share the seed drawn for the call
    assert [t.name for t in fd.inputs()] == ["T0"]
    assert len(fd.fusion([x]).inputs) == 2  # the fusion reads the seed
    given = fd.execute([x, 42])
    assert all(torch.equal(a, b) for a, b in zip(given, fd.execute([x, 42]), strict=True))
    with pytest.raises(DefinitionError, match="S2 is the seed of the random ops given no rng_seed"):
        fd.execute([x, 42, 43])


# ---- scripts --------------------------------------------------------------------------------------------

# Thunder's nvFuser executor writes a dropout as uniform with its own seed and offset inputs, lt, cast, mul
THUNDER_DROPOUT = """\
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id7(fd : FusionDefinition) -> None :
    S0 = fd.define_scalar(None, dtype=DataType.Int)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    T2 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16,
                          is_cpu=False, stride_order=[2, 1, 0])
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S4 = fd.define_scalar(1.00000, dtype=DataType.Double)
    S5 = fd.define_scalar(2, dtype=DataType.Int)
    S6 = fd.define_scalar(16, dtype=DataType.Int)
    S7 = fd.define_scalar(96, dtype=DataType.Int)
    T9 = fd.ops.uniform(S3, S4, shape=[S5, S6, S7], rng_seed=S1, rng_offset=S0, dtype=DataType.BFloat16)
    S10 = fd.define_scalar(0.900000, dtype=DataType.Double)
    T11 = fd.ops.lt(T9, S10)
    T12 = fd.ops.cast(T2, dtype=DataType.Float)
    T13 = fd.ops.cast(T11, dtype=DataType.Float)
    T14 = fd.ops.mul(T12, T13)
    S15 = fd.define_scalar(1.11111, dtype=DataType.Double)
    T16 = fd.ops.mul(T14, S15)
    T17 = fd.ops.cast(T16, dtype=DataType.BFloat16)
    fd.add_output(T11)
    fd.add_output(T17)

with FusionDefinition() as fd:
    nvfuser_fusion_id7(fd)

inputs = [
    2834,
    4521290340,
    torch.testing.make_tensor((2, 16, 96), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
"""

# the 2023 spellings: dtype fourth and positional, define_constant, a list of Scalars for the shape
OLD_UNIFORM = """\
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguous=[True, True], dtype=DataType.Half)
    S1 = fd.define_constant(0.0)
    S2 = fd.define_constant(1.0)
    T3 = fd.ops.uniform(S1, S2, [fd.define_constant(16), fd.define_constant(64)], DataType.Half)
    T4 = fd.ops.mul(T0, fd.ops.gt(T3, 0.5))
    T5 = fd.ops.rand_like(T0, rng_seed=fd.define_constant(3), rng_offset=fd.define_constant(8))
    fd.add_output(T4)
    fd.add_output(T5)

inputs = [torch.randn(16, 64, dtype=torch.float16)]
"""


@pytest.mark.parametrize("backend", ["hfuse", "naive", "eager"])
def test_a_thunder_dropout_loads_from_its_script_and_runs(backend, device):
    script = load(THUNDER_DROPOUT, device=device)
    (mask, out), _, _ = execute(script.fusion, script.inputs, backend=backend)
    expected_mask, expected_out = evaluate(script.fusion, script.inputs)
    assert torch.equal(mask, expected_mask) and torch.equal(out, expected_out)
    assert 0.85 < mask.float().mean().item() < 0.95


def test_old_spellings_and_drawn_seeds_load_from_script_text(device):
    script = load(OLD_UNIFORM, device=device)
    assert len(script.inputs) == 2, "the loader draws the seed of the unseeded uniform"
    outputs, _, _ = execute(script.fusion, script.inputs)  # validated against the reference
    assert outputs[1].dtype == torch.float16 and list(outputs[1].shape) == [16, 64]


def test_random_ops_print_and_load_back_equal():
    fusion = load(OLD_UNIFORM, device="cpu").fusion
    printed = print_fusion(fusion)
    assert (
        "fd.ops.uniform(S0, S1, shape=[16, 64], rng_seed=S4, rng_offset=S5, dtype=DataType.Half)" in printed
    )
    assert load(printed, device="cpu").fusion == fusion


def test_argument_forms_of_nvfuser_versions_record_the_same_op():
    def define(call):
        with FusionDefinition() as fd:
            x = fd.define_tensor(shape=[3, 5], contiguity=[True, True], dtype=DataType.Half)
            seed, offset = fd.define_scalar(9, dtype=DataType.Int), fd.define_scalar(1, dtype=DataType.Int)
            fd.add_output(call(fd, x, seed, offset))
        return fd.fusion()

    forms = [
        lambda fd, x, s, o: fd.ops.rand_like(x, rng_seed=s, rng_offset=o),
        lambda fd, x, s, o: fd.ops.uniform(0.0, 1.0, [3, 5], rng_seed=s, rng_offset=o, dtype=DataType.Half),
        lambda fd, x, s, o: fd.ops.uniform(0.0, 1.0, (3, 5), DataType.Half, rng_seed=s, rng_offset=o),
        lambda fd, x, s, o: fd.ops.uniform(
            0.0, 1.0, shape=fd.define_vector([3, 5]), rng_seed=s, rng_offset=o, dtype=DataType.Half
        ),
        lambda fd, x, s, o: fd.ops.uniform(
            0.0, 1.0, fd.ops.shape(x), rng_seed=s, rng_offset=o, dtype=DataType.Half
        ),
    ]
    values = [evaluate(define(form), [torch.zeros(3, 5, dtype=torch.float16)])[0] for form in forms]
    assert all(torch.equal(v, values[0]) for v in values)


# ---- statistics ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op, params, mean, var",
    [
        ("uniform", (0.0, 1.0), 0.5, 1 / 12),
        ("uniform", (-3.0, 5.0), 1.0, 64 / 12),
        ("normal", (0.0, 1.0), 0.0, 1.0),
        ("normal", (2.0, 0.5), 2.0, 0.25),
    ],
    ids=["uniform", "uniform-range", "normal", "normal-params"],
)
@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_large_samples_have_the_distributions_moments(op, params, mean, var, dtype):
    n = 1 << 18  # drawn by the reference, which the kernels match (above)
    sample = _run(_random(op, [n], dtype, params, stream=(2024, 0)), [], "eager").double()
    sd = var**0.5
    assert abs(sample.mean().item() - mean) < 5 * sd / n**0.5
    assert abs(sample.var().item() - var) < 0.05 * var
    if op == "uniform":
        assert params[0] <= sample.min().item() and sample.max().item() < params[1]
