"""The runtime: kernel cache, byte counting, plan cache, validation, poisoning, backends and the profile."""

from __future__ import annotations

import os

import pytest
import torch
from cache_kernels import kernel_source, scale_kernel_source

import hfuse
from hfuse import pipeline, settings
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, KernelError, LimitError, UnsupportedError, ValidationError
from hfuse.ir import Fusion, Op
from hfuse.runtime import clear_cache, execute, special_probe, validated
from hfuse.runtime import executor as executor_module
from hfuse.runtime import segments as segments_module
from hfuse.runtime.bytes import segment_bytes
from hfuse.runtime.device import peak_from_clock
from hfuse.runtime.kernel_cache import load_kernel, source_hash
from hfuse.runtime.launcher import KernelLauncher
from hfuse.segment.model import Group, SchedulerKind

F32 = 4


pytestmark = pytest.mark.usefixtures("fresh_cache")


# ---- kernel cache -------------------------------------------------------------------------------


def test_kernel_cache_writes_source_by_hash_and_imports_it_once(tmp_path, device):
    source = scale_kernel_source(2, tmp_path.name)
    module = load_kernel(kernel_source(source))
    path = tmp_path / "kernels" / f"{source_hash(source)}.py"
    assert path.read_text() == source
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind
    assert load_kernel(kernel_source(source)) is module
    x = torch.arange(100, dtype=torch.float32, device=device)
    out = torch.full_like(x, float("nan"))
    module.launch(x, out)
    torch.testing.assert_close(out, x * 2)


@pytest.mark.parametrize(
    "source, match",
    [
        ("def launch(:\n", r"failed to import \(SyntaxError"),
        ("import triton\nVALUE = 1\n", "defines no launch"),
    ],
    ids=["syntax-error", "no-launch"],
)
def test_kernel_cache_rejects_broken_modules(source, match):
    with pytest.raises(KernelError, match=match):
        load_kernel(kernel_source(source))


def test_kernel_cache_names_the_setting_when_the_folder_is_not_writable(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(settings.CACHE_DIR.env, str(blocker / "kernels"))
    with pytest.raises(KernelError, match="HFUSE_CACHE_DIR"):
        load_kernel(kernel_source(scale_kernel_source(2, "unwritable")))


def test_interpreter_is_on_without_cuda():
    if torch.cuda.is_available():
        pytest.skip("on CUDA kernels are compiled, not interpreted")
    load_kernel(kernel_source(scale_kernel_source(2)))
    assert os.environ.get("TRITON_INTERPRET") == "1"


# ---- bytes counted from the IR ------------------------------------------------------------------


def _slice_cols(b, x, start, end):
    return b.add(Op.SLICE, [x], {"starts": [0, start], "ends": [x.shape[0], end], "strides": [1, 1]})[0]


def _sliced(b, x):
    return [_slice_cols(b, x, 2, 6)]


def _broadcast_operand(b, x):
    row = b.define_tensor([8], DataType.Float)
    (wide,) = b.add(Op.BROADCAST_IN_DIM, [row], {"shape": [4, 8], "broadcast_dims": [1]})
    return [b.add(Op.ADD, [x, wide])[0]]


def _cropped(b, x):
    zero = b.define_scalar(DataType.Float, 0.0)
    return [b.add(Op.PAD, [x, zero], {"pad_widths": [-1, -1]})[0]]


def _cat_of_edges(b, x):
    return [b.add(Op.CAT, [_slice_cols(b, x, 0, 2), _slice_cols(b, x, 6, 8)], {"dim": 1})[0]]


def _sum_of_rows(b, x):
    (top,) = b.add(Op.SLICE, [x], {"starts": [0, 0], "ends": [2, 8], "strides": [1, 1]})
    return [b.add(Op.SUM, [top], {"dims": [1]})[0]]


def _two_overlapping_slices(b, x):
    return [_slice_cols(b, x, 0, 4), _slice_cols(b, x, 2, 6)]


def _negated(b, x):
    return [b.add(Op.NEG, [x])[0]]


BYTE_CASES = [
    # (build, input strides, bytes read, bytes written)
    (_sliced, None, 4 * 4 * F32, 4 * 4 * F32),
    (_broadcast_operand, None, (32 + 8) * F32, 32 * F32),
    (_cropped, None, 4 * 6 * F32, 4 * 6 * F32),
    (_cat_of_edges, None, 4 * 4 * F32, 4 * 4 * F32),
    (_sum_of_rows, None, 2 * 8 * F32, 2 * F32),
    (_two_overlapping_slices, None, 4 * 6 * F32, 2 * 4 * 4 * F32),
    (_negated, (0, 1), 8 * F32, 32 * F32),
]


@pytest.mark.parametrize(
    "build, strides, read, written",
    BYTE_CASES,
    ids=[
        "slice",
        "broadcast-operand",
        "negative-pad",
        "cat-of-slices",
        "sum-of-slice",
        "overlap",
        "stride-0",
    ],
)
def test_segment_bytes_count_each_element_read_once(build, strides, read, written):
    b = FusionBuilder()
    x = b.define_tensor([4, 8], DataType.Float, strides)
    for out in build(b, x):
        b.add_output(out)
    fusion = b.build()
    group = Group(0, SchedulerKind.POINTWISE, fusion.exprs, fusion.inputs, fusion.output_names)
    assert segment_bytes(fusion, group) == (read, written)


def test_alias_segments_move_no_bytes():
    fusion = _pointwise_fusion()
    group = Group(0, SchedulerKind.ALIAS, fusion.exprs, fusion.inputs, fusion.output_names)
    assert segment_bytes(fusion, group) == (0, 0)


@pytest.mark.parametrize(
    "clock_khz, bus_bits, gbs",
    [(1_215_000, 5120, 1555.2), (2_619_000, 6144, 4023.0)],
    ids=["A100-40GB", "H100-SXM"],
)
def test_nominal_peak_is_twice_clock_times_bus_width(clock_khz, bus_bits, gbs):
    assert peak_from_clock(clock_khz, bus_bits) == pytest.approx(gbs, rel=1e-3)


# ---- execute ------------------------------------------------------------------------------------


def _pointwise_fusion(n: int = 200) -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([n], DataType.Float)
    y = b.define_tensor([n], DataType.Float)
    (prod,) = b.add(Op.MUL, [x, y])
    (out,) = b.add(Op.ADD, [prod, x])
    b.add_output(out)
    return b.build()


def _inputs(fusion: Fusion, device: str) -> list[torch.Tensor]:
    return [torch.randn(fusion.value(n).shape, device=device) for n in fusion.inputs]


def _expected(inputs):
    x, y = inputs
    return x * y + x


@pytest.mark.parametrize("backend", ["hfuse", "naive", "eager"], ids=["hfuse", "naive", "eager"])
def test_execute_matches_torch(backend, device):
    fusion = _pointwise_fusion()
    inputs = _inputs(fusion, device)
    outputs, profile, compiled = execute(fusion, inputs, backend=backend)
    torch.testing.assert_close(outputs[0], _expected(inputs))
    assert profile is None
    assert compiled.fusion is fusion


def test_the_first_run_reports_its_stages_and_a_cached_run_none(device):
    fusion = _pointwise_fusion()
    _, first, _ = execute(fusion, _inputs(fusion, device), profile=True)
    stages = dict(first.stages_ms)
    second_look = ["special values"] if special_probe.wanted() else []
    side_by_side = ["compile kernels"] if "compile kernels" in stages else []  # a GPU's forked compiles
    assert list(stages) == [
        "passes", "segment", "codegen", "load kernels", *side_by_side,
        "first launches", "reference", "compare", *second_look,
    ]  # fmt: skip
    assert all(ms >= 0 for ms in stages.values())
    assert sum(stages.values()) <= first.host_time_ms + 1.0  # the stages are parts of the first call
    _, later, _ = execute(fusion, _inputs(fusion, device), profile=True)
    assert later.stages_ms == ()


def test_second_call_is_a_cache_hit_without_segmentation_codegen_or_validation(monkeypatch, device):
    calls = {"segment": 0, "generate": 0, "validate": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(hfuse.pipeline, "segment", counted("segment", pipeline.segment))
    monkeypatch.setattr(hfuse.pipeline, "generate", counted("generate", pipeline.generate))
    monkeypatch.setattr(
        executor_module, "validate_outputs", counted("validate", executor_module.validate_outputs)
    )
    fusion = _pointwise_fusion()
    first = execute(fusion, _inputs(fusion, device), profile=True)
    after_first = dict(calls)
    inputs = _inputs(fusion, device)
    outputs, profile, compiled = execute(fusion, inputs, profile=True)
    assert after_first["segment"] == 1 and after_first["validate"] == 1 and after_first["generate"] >= 1
    assert calls == after_first
    assert compiled is first[2]
    assert (first[1].cache_hit, profile.cache_hit) == (False, True)
    assert profile.compile_time_ms == 0.0 and profile.validated
    torch.testing.assert_close(outputs[0], _expected(inputs))


def _zero_writing(original):
    def launch(*args):
        original(*args)
        args[-1].zero_()

    return launch


def _raising(original):
    def launch(*args):
        raise ValueError("out of resources")

    return launch


def _tail_skipping(original):
    """A kernel whose mask forgets the last element: it writes everything else."""

    def launch(*args):
        scratch = torch.empty_like(args[-1])
        original(*args[:-1], scratch)
        args[-1].view(-1)[:-1] = scratch.view(-1)[:-1]

    return launch


@pytest.mark.parametrize(
    "broken, match",
    [(_zero_writing, r"output T\d+ .* written by kernel hfuse_\w+"), (_tail_skipping, r"got nan")],
    ids=["wrong-values", "unwritten-element"],
)
def test_first_run_validates_against_the_reference(broken, match, monkeypatch, device):
    fusion = _pointwise_fusion()
    compiled = hfuse.compile(fusion)
    module = load_kernel(compiled.kernels[0])
    monkeypatch.setattr(module, "launch", broken(module.launch))
    with pytest.raises(ValidationError, match=match):
        execute(fusion, _inputs(fusion, device))


def _counting_validations(monkeypatch) -> list[int]:
    calls = []
    original = executor_module.validate_outputs

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(executor_module, "validate_outputs", counted)
    return calls


def test_a_later_process_skips_the_reference_for_kernels_validated_before(monkeypatch, device):
    calls = _counting_validations(monkeypatch)
    fusion = _pointwise_fusion()
    _, first, _ = execute(fusion, _inputs(fusion, device), profile=True)
    clear_cache()  # a new process: no plans in memory, the same cache folder
    module = load_kernel(hfuse.compile(fusion).kernels[0])
    monkeypatch.setattr(module, "launch", _tail_skipping(module.launch))
    outputs, profile, _ = execute(fusion, _inputs(fusion, device), profile=True)
    assert len(calls) == 1
    assert profile.validated and profile.max_abs_error == first.max_abs_error
    assert torch.isnan(outputs[0][-1]), "the first run of a plan still poisons its outputs"


def test_always_validate_checks_a_remembered_plan_again(monkeypatch, device):
    calls = _counting_validations(monkeypatch)
    fusion = _pointwise_fusion()
    execute(fusion, _inputs(fusion, device))
    clear_cache()
    monkeypatch.setenv(settings.ALWAYS_VALIDATE.env, "1")
    execute(fusion, _inputs(fusion, device))
    assert len(calls) == 2


def test_a_remembered_validation_holds_for_its_device_only(monkeypatch, device):
    calls = _counting_validations(monkeypatch)
    fusion = _pointwise_fusion()
    execute(fusion, _inputs(fusion, device))
    clear_cache()
    monkeypatch.setattr(validated, "device_name", lambda: "another device")
    execute(fusion, _inputs(fusion, device))
    assert len(calls) == 2


def test_poison_setting_fills_outputs_on_validated_runs(monkeypatch, device):
    fusion = _pointwise_fusion()
    execute(fusion, _inputs(fusion, device))  # validated with the real kernel
    module = load_kernel(hfuse.compile(fusion).kernels[0])
    monkeypatch.setattr(module, "run", _tail_skipping(module.run))  # validated runs skip launch()'s checks
    monkeypatch.setenv(settings.POISON_OUTPUTS.env, "1")
    outputs, _, _ = execute(fusion, _inputs(fusion, device))
    assert torch.isnan(outputs[0][-1]) and not torch.isnan(outputs[0][:-1]).any()


def test_profile_without_cuda_marks_times_not_meaningful(device):
    if device == "cuda":
        pytest.skip("on CUDA times are measured")
    fusion = _pointwise_fusion()
    _, profile, compiled = execute(fusion, _inputs(fusion, device), profile=True)
    assert not profile.times_meaningful and profile.kernel_time_ms is None
    assert all(k.time_ms is None and k.effective_bandwidth_gbs is None for k in profile.kernel_profiles)
    assert profile.validated and profile.max_abs_error is not None
    assert profile.segments == compiled.kernel_count == len(compiled.kernels)
    assert (profile.input_bytes, profile.output_bytes) == (2 * 200 * F32, 200 * F32)
    assert profile.host_time_ms > 0 and profile.compile_time_ms > 0


def test_eager_backend_is_one_torch_segment(device):
    fusion = _pointwise_fusion()
    _, profile, compiled = execute(fusion, _inputs(fusion, device), backend="eager", profile=True)
    assert compiled.kernels == () and compiled.kernel_count == 0
    assert [(k.scheduler, k.launches_kernel) for k in profile.segment_profiles] == [("torch", False)]
    assert profile.segment_profiles[0].input_bytes == 2 * 200 * F32
    assert profile.kernel_profiles == ()  # torch's kernels, not generated ones


def test_in_place_outputs_are_written_into_their_input_and_not_returned(device):
    b = FusionBuilder()
    x = b.define_tensor([64], DataType.Float)
    (doubled,) = b.add(Op.ADD, [x, x])
    (neg,) = b.add(Op.NEG, [x])
    b.add_output(neg)
    b.add_output(doubled, alias_input=x)
    fusion = b.build()
    for _ in range(2):  # the first run of the plan, then a cached one
        x_value = torch.randn(64, device=device)
        original = x_value.clone()
        outputs, _, _ = execute(fusion, [x_value])
        assert len(outputs) == 1
        torch.testing.assert_close(outputs[0], -original)
        torch.testing.assert_close(x_value, original * 2)


def test_a_cached_definition_call_keeps_the_run_signature_of_its_inputs(monkeypatch, device):
    with hfuse.FusionDefinition() as fd:
        x = fd.define_tensor([-1])
        fd.add_output(fd.ops.exp(x))
    first = [torch.randn(8, device=device)]
    fd.execute(first)
    made = []
    real = executor_module.run_signature
    monkeypatch.setattr(executor_module, "run_signature", lambda inputs: made.append(1) or real(inputs))
    again = [torch.randn(8, device=device)]
    torch.testing.assert_close(fd.execute(again)[0], again[0].exp())
    assert made == []
    fd.execute([torch.randn(16, device=device)])  # new inputs: a new signature, a new plan
    assert made


def _scaled_exp_definition() -> hfuse.FusionDefinition:
    with hfuse.FusionDefinition() as fd:
        x = fd.define_tensor([-1])
        s = fd.define_scalar(dtype=DataType.Float)
        fd.add_output(fd.ops.mul(fd.ops.exp(x), s))
        fd.add_output(fd.ops.add(x, x), alias_input=x)
    return fd


def test_a_validated_definition_call_skips_the_full_run(monkeypatch, device):
    fd = _scaled_exp_definition()
    fd.execute([torch.randn(8, device=device), 2.0])  # compiles, validates
    fd.execute([torch.randn(8, device=device), 2.0])  # the first cached call keeps the lean call
    monkeypatch.setattr(executor_module.Plan, "run", _must_not_run)
    for _ in range(2):
        x = torch.randn(8, device=device)
        original = x.clone()
        (scaled,) = fd.execute([x, 2.0])
        torch.testing.assert_close(scaled, original.exp() * 2.0)
        torch.testing.assert_close(x, original * 2)  # the in-place output went into its input
    assert fd.last_triton_code()
    with pytest.raises(AssertionError, match="the full run ran"):
        fd.execute([torch.randn(8, device=device), 2.0], profile=True)  # a profile always goes through it


def test_a_validated_pointwise_call_writes_in_place_outputs_straight_into_their_inputs(monkeypatch, device):
    """No new buffer and no copy after the launch: the kernel's output is the input itself."""
    fd = _scaled_exp_definition()
    fd.execute([torch.randn(8, device=device), 2.0])  # compiles, validates (into new buffers, poisoned)
    copies = []
    real = torch.Tensor.copy_
    monkeypatch.setattr(torch.Tensor, "copy_", lambda t, *a, **k: copies.append(t) or real(t, *a, **k))
    for _ in range(2):
        x = torch.randn(8, device=device)
        original = x.clone()
        fd.execute([x, 2.0])
        torch.testing.assert_close(x, original * 2)
    assert copies == []


def _in_place_of(build) -> dict[str, str]:
    b = FusionBuilder()
    x = b.define_tensor([4, 4], DataType.Float)
    out = build(b, x)
    b.add_output(out, alias_input=x)
    return segments_module.writable_in_place(pipeline.compile_fusion(b.build()))


IN_PLACE_WRITES = {
    "elementwise": (lambda b, x: b.add(Op.MUL, [x, x])[0], True),
    # each program reads x at the position another program writes: a new buffer, then a copy
    "a_transpose_of_itself": (
        lambda b, x: b.add(Op.ADD, [x, b.add(Op.PERMUTE, [x], {"dims": [1, 0]})[0]])[0],
        False,
    ),
    "a_row_sum_beside_it": (
        lambda b, x: b.add(
            Op.ADD,
            [
                x,
                b.add(
                    Op.BROADCAST_IN_DIM,
                    [b.add(Op.SUM, [x], {"dims": [1], "keepdim": False, "dtype": DataType.Float})[0]],
                    {"shape": [4, 4], "broadcast_dims": [0]},
                )[0],
            ],
        )[0],
        False,
    ),
}


@pytest.mark.parametrize(("build", "direct"), IN_PLACE_WRITES.values(), ids=IN_PLACE_WRITES.keys())
def test_only_an_elementwise_kernel_writes_an_in_place_output_into_its_input(build, direct):
    assert bool(_in_place_of(build)) is direct


def test_a_definition_call_with_another_scalar_value_runs_with_that_value(device):
    fd = _scaled_exp_definition()
    for scale in (2.0, 2.0, 3.0, 3.0, -1.5):
        x = torch.randn(8, device=device)
        torch.testing.assert_close(fd.execute([x.clone(), scale])[0], x.exp() * scale)


def test_clear_cache_retires_the_cached_calls_of_definitions(monkeypatch, device):
    fd = _scaled_exp_definition()
    for _ in range(2):
        fd.execute([torch.randn(8, device=device), 2.0])
    prepared = []
    real = executor_module._prepare
    monkeypatch.setattr(executor_module, "_prepare", lambda *a: prepared.append(1) or real(*a))
    clear_cache()
    x = torch.randn(8, device=device)
    torch.testing.assert_close(fd.execute([x.clone(), 2.0])[0], x.exp() * 2.0)
    assert prepared == [1]


def test_out_of_memory_in_a_cached_definition_call_is_a_limit_error(monkeypatch, device):
    fd = _scaled_exp_definition()
    for _ in range(2):
        fd.execute([torch.randn(8, device=device), 2.0])

    def out_of_memory(*args):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.00 KiB")

    monkeypatch.setattr(KernelLauncher, "launch", out_of_memory)
    with pytest.raises(LimitError, match=r"backend hfuse\) ran out of device memory \(CUDA out of memory"):
        fd.execute([torch.randn(8, device=device), 2.0])


def _must_not_run(*args, **kwargs):
    raise AssertionError("the full run ran")


def _strided(x: torch.Tensor) -> torch.Tensor:
    return x.repeat(2)[::2]


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda f, xs: execute(f, xs[:1]), DefinitionError, "execute got 1 inputs but the fusion defines 2"),
        (lambda f, xs: execute(f, [xs[0], xs[1][:10]]), DefinitionError, r"\[10\] but the fusion was built"),
        (lambda f, xs: execute(f, [xs[0], _strided(xs[1])]), DefinitionError, r"strides \[2\] but .* \[1\]"),
        (lambda f, xs: execute(f, xs, backend="tvm"), UnsupportedError, "unknown backend 'tvm'"),
    ],
    ids=["input-count", "input-shape", "input-strides", "unknown-backend"],
)
def test_execute_rejects_bad_calls(call, error, match, device):
    fusion = _pointwise_fusion()
    with pytest.raises(error, match=match):
        call(fusion, _inputs(fusion, device))


def test_inductor_backend_needs_a_gpu(device):
    if device == "cuda":
        pytest.skip("the GPU suite runs inductor")
    fusion = _pointwise_fusion()
    with pytest.raises(UnsupportedError, match="compiles for a CUDA GPU and none is available"):
        execute(fusion, _inputs(fusion, device), backend="inductor")


def test_a_failing_launch_is_a_kernel_error_naming_the_kernel(monkeypatch, device):
    fusion = _pointwise_fusion()
    module = load_kernel(hfuse.compile(fusion).kernels[0])
    monkeypatch.setattr(module, "launch", _raising(module.launch))
    with pytest.raises(
        KernelError, match=r"kernel hfuse_pointwise_g0 \(segment 0\) failed to launch \(ValueError"
    ):
        execute(fusion, _inputs(fusion, device))


@pytest.mark.skipif(torch.cuda.is_available(), reason="Triton's interpreter runs kernels only without a GPU")
def test_a_fresh_process_runs_kernels_that_call_triton_library_functions(tmp_path):
    """tl.sigmoid (used for tanh) is itself a Triton function: the interpreter must be chosen before
    anything imports Triton, or calling it from an interpreted kernel fails."""
    import subprocess
    import sys

    script = (
        "import torch\n"
        "from hfuse import FusionDefinition, DataType\n"
        "with FusionDefinition() as fd:\n"
        "    x = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
        "    fd.add_output(fd.ops.tanh(x))\n"
        "x = torch.randn(8)\n"
        "(y,) = fd.execute([x])\n"
        "assert torch.allclose(y, torch.tanh(x), atol=1e-6), (y, torch.tanh(x))\n"
        "print('ok')\n"
    )
    env = {**os.environ, "HFUSE_CACHE_DIR": str(tmp_path / "kernels")}
    env.pop("TRITON_INTERPRET", None)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
