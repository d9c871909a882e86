"""On a CUDA device: every small example against the reference, with kernel counts checked three ways
(the segmentation, the profile and torch.profiler's CUDA kernel events); split reductions and rows kept
whole at full size."""

from __future__ import annotations

import pytest
import torch

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.examples import list_examples
from hfuse.ir import Op
from hfuse.loader import load
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.segment.model import SchedulerKind
from hfuse.tolerance import compare, reduction_size

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_cache")]

EXAMPLES = list_examples("small")
RUNS = [("hfuse", True), ("hfuse", False), ("naive", False)]
RUN_IDS = ["hfuse", "hfuse-no-alias", "naive"]


def cuda_kernels_launched(fn) -> int:
    """CUDA kernels one call of `fn` launches, as torch.profiler sees them (copies and fills excluded)."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
        fn()
        torch.cuda.synchronize()
    names = [e.name.lower() for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sum(1 for name in names if "memcpy" not in name and "memset" not in name)


def _fresh(inputs):
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


@pytest.mark.parametrize("backend, alias_outputs", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_matches_reference_and_kernel_counts_agree(example, backend, alias_outputs):
    script = load(example.text, device="cuda")
    expected = evaluate(script.fusion, _fresh(script.inputs))
    hidden = {o.name for o in script.fusion.outputs if o.alias_input is not None}
    expected = [e for e, o in zip(expected, script.fusion.outputs, strict=True) if o.name not in hidden]
    outputs, profile, compiled = execute(
        script.fusion, _fresh(script.inputs), backend=backend, alias_outputs=alias_outputs, profile=True
    )
    shown = [o.name for o in script.fusion.outputs if o.name not in hidden]
    for name, actual, wanted in zip(shown, outputs, expected, strict=True):
        dtype = script.fusion.value(name).dtype
        result = compare(actual, wanted, dtype, reduction_size(script.fusion, name))
        assert result.ok, f"{example.name}, output {name}: {result.message}"
    assert profile.validated and profile.times_meaningful
    assert profile.segments == compiled.kernel_count == sum(k.launches for k in compiled.kernels)
    for kernel in profile.kernel_profiles:
        if kernel.launches_kernel:
            assert kernel.time_ms > 0 and kernel.effective_bandwidth_gbs > 0
    launched = cuda_kernels_launched(
        lambda: execute(script.fusion, script.inputs, backend=backend, alias_outputs=alias_outputs)
    )
    torch_work = any(g.kind is SchedulerKind.TORCH for g in compiled.segmentation.groups) or hidden
    if torch_work:  # torch segments and in-place copies launch kernels of their own
        assert launched >= compiled.kernel_count
    else:
        assert launched == compiled.kernel_count


@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")
# Inductor's advice on a matmul, once a process: whichever test of a worker compiles one first sees it
@pytest.mark.filterwarnings("ignore:TensorFloat32 tensor cores:UserWarning")
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_inductor_backend_matches_reference(example):
    script = load(example.text, device="cuda")
    expected = evaluate(script.fusion, _fresh(script.inputs))
    outputs, profile, _ = execute(script.fusion, _fresh(script.inputs), backend="inductor", profile=True)
    assert len(outputs) <= len(expected)
    assert profile.validated and profile.segment_profiles[0].time_ms > 0


def test_seed_at_nanogpt_shape_is_one_kernel_and_reports_bandwidth():
    script = load(next(e for e in list_examples("nanogpt") if e.name == "qkv_split").text, device="cuda")
    (x,) = script.inputs
    assert x.shape == (16, 128, 3072)
    outputs, profile, compiled = execute(script.fusion, [x], alias_outputs=False, profile=True)
    launched = cuda_kernels_launched(lambda: execute(script.fusion, [x], alias_outputs=False))
    assert compiled.kernel_count == 1 == launched
    assert profile.input_bytes == profile.output_bytes == x.nbytes
    assert profile.peak_bandwidth_gbs > 1000 and profile.percentage_peak_bandwidth > 1
    assert profile.kernel_profiles[0].compile_time_ms > 0


SPLIT_SUMS = {
    "full_sum_4096x4096": ((4096, 4096), (0, 1)),
    "row_sums_8x4M": ((8, 1 << 22), (1,)),
    "column_sums_12289x3001": ((12289, 3001), (0,)),  # rows off 16-byte boundaries: small tiles
}


@pytest.mark.parametrize("shape, dims", SPLIT_SUMS.values(), ids=SPLIT_SUMS.keys())
def test_few_long_rows_are_summed_in_two_launches_that_fill_the_gpu(shape, dims):
    b = FusionBuilder()
    x_value = b.define_tensor(list(shape), DataType.Float)
    (total,) = b.add(Op.SUM, [x_value], {"dims": list(dims)})
    b.add_output(total)
    fusion = b.build()
    x = torch.randn(*shape, device="cuda")
    (out,), profile, compiled = execute(fusion, [x], profile=True)
    (kernel,) = compiled.kernels
    assert kernel.launches == 2 == compiled.kernel_count == profile.segments
    assert kernel.grid[0] >= torch.cuda.get_device_properties(0).multi_processor_count  # the first launch
    expected = x.double().sum(dims).float()
    result = compare(out, expected, DataType.Float, reduction_size(fusion, total.name))
    assert result.ok, result.message
    assert cuda_kernels_launched(lambda: execute(fusion, [x])) == 2
    # one program looping over a row reads about 1% of the peak bandwidth; split, 27-48% were measured
    assert profile.percentage_peak_bandwidth > 10, profile.percentage_peak_bandwidth


def _column_center(b, x, dims):
    (total,) = b.add(Op.SUM, [x], {"dims": dims, "keepdim": True, "dtype": DataType.Float})
    return [b.add(Op.SUB, [x, total])[0]]


def _column_batch_norm(b, x, dims):
    var, mean = b.add(Op.VAR_MEAN, [x], {"dims": dims, "correction": 0, "keepdim": True})
    (rstd,) = b.add(Op.RSQRT, [b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])[0]])
    return [b.add(Op.MUL, [b.add(Op.SUB, [x, mean])[0], rstd])[0], mean]


def _column_softmax(b, x, dims):
    (top,) = b.add(Op.MAX, [x], {"dims": dims, "keepdim": True, "dtype": DataType.Float})
    (e,) = b.add(Op.EXP, [b.add(Op.SUB, [x, top])[0]])
    (total,) = b.add(Op.SUM, [e], {"dims": dims, "keepdim": True, "dtype": DataType.Float})
    return [b.add(Op.DIV, [e, total])[0]]


# rows of 4095 fp32, 2049 and 30522 bf16 start off 16-byte boundaries; 30522 and 20000 columns make more
# tiles of rows than split_below_programs
FLAT_FINISHES = {
    "center_4099x4095_fp32": (_column_center, (4099, 4095), DataType.Float),
    "batch_norm_8192x2049_bf16": (_column_batch_norm, (8192, 2049), DataType.BFloat16),
    "softmax_4096x4097_fp32": (_column_softmax, (4096, 4097), DataType.Float),
    "center_2048x30522_bf16": (_column_center, (2048, 30522), DataType.BFloat16),
    "batch_norm_2048x20000_fp32": (_column_batch_norm, (2048, 20000), DataType.Float),
}


@pytest.mark.parametrize("build, shape, dtype", FLAT_FINISHES.values(), ids=FLAT_FINISHES.keys())
def test_large_column_normalizations_write_their_outputs_in_a_third_flat_launch(build, shape, dtype):
    """Partials, their combine into each column's statistics, then the outputs by their flat index: three
    launches, right on the first (validated) run and on cached calls replayed with new input values."""
    from hfuse.runtime import prepare

    b = FusionBuilder()
    x_value = b.define_tensor(list(shape), dtype)
    (xf,) = b.add(Op.CAST, [x_value], {"dtype": DataType.Float})
    for out in build(b, xf, [0]):
        b.add_output(b.add(Op.CAST, [out], {"dtype": dtype})[0] if out.shape == tuple(shape) else out)
    fusion = b.build()
    x = torch.randn(*shape, device="cuda").to(dtype.torch)
    plan = prepare(fusion, [x])
    plan.run([x])
    (kernel,) = plan.compiled.kernels
    assert kernel.launches == 3 and plan.validated
    assert cuda_kernels_launched(lambda: plan.call([x])) == 3
    for _ in range(3):
        plan.call([x])
    x.copy_(torch.randn(*shape, device="cuda"))
    got = plan.call([x])
    for name, actual, wanted in zip(fusion.output_names, got, evaluate(fusion, [x]), strict=True):
        result = compare(actual, wanted, fusion.value(name).dtype, reduction_size(fusion, name))
        assert result.ok, f"output {name}: {result.message}"


def _softmax(b, x):
    (top,) = b.add(Op.MAX, [x], {"dims": [1], "keepdim": True, "dtype": DataType.Float})
    (e,) = b.add(Op.EXP, [b.add(Op.SUB, [x, top])[0]])
    (total,) = b.add(Op.SUM, [e], {"dims": [1], "keepdim": True, "dtype": DataType.Float})
    return [b.add(Op.DIV, [e, total])[0]]


def _add_layer_norm(b, x):
    """A residual add and a layer norm of the sum, writing both: two inputs read along the row."""
    residual = b.add(Op.CAST, [b.define_tensor(list(x.shape), DataType.BFloat16)], {"dtype": DataType.Float})
    (total,) = b.add(Op.ADD, [x, residual[0]])
    var, mean = b.add(Op.VAR_MEAN, [total], {"dims": [1], "correction": 0, "keepdim": True})
    (rstd,) = b.add(Op.RSQRT, [b.add(Op.ADD, [var, b.define_scalar(DataType.Double, 1e-5)])[0]])
    return [b.add(Op.MUL, [b.add(Op.SUB, [total, mean])[0], rstd])[0], total]


def _variance(b, x):
    return [b.add(Op.VAR_MEAN, [x], {"dims": [1], "correction": 1, "keepdim": False})[0]]


# rows of 16385-32768 columns a loop over column blocks would read twice (`Options.persistent_reread_cols`)
WHOLE_ROWS = {
    "softmax_2048x32000_fp32": (_softmax, (2048, 32000), DataType.Float),
    "softmax_1024x30522_bf16": (_softmax, (1024, 30522), DataType.BFloat16),  # rows off 16-byte boundaries
    "add_layer_norm_1024x20480_bf16": (_add_layer_norm, (1024, 20480), DataType.BFloat16),
    "variance_1024x32768_fp32": (_variance, (1024, 32768), DataType.Float),
}


@pytest.mark.parametrize("build, shape, dtype", WHOLE_ROWS.values(), ids=WHOLE_ROWS.keys())
def test_rows_a_loop_would_read_twice_are_kept_whole_in_one_block(build, shape, dtype):
    b = FusionBuilder()
    x_value = b.define_tensor(list(shape), dtype)
    (xf,) = b.add(Op.CAST, [x_value], {"dtype": DataType.Float})
    for out in build(b, xf):
        b.add_output(b.add(Op.CAST, [out], {"dtype": dtype})[0] if out.shape == tuple(shape) else out)
    fusion = b.build()
    inputs = [torch.randn(*shape, device="cuda").to(dtype.torch) for _ in fusion.inputs]
    got, _, compiled = execute(fusion, inputs, profile=True)
    (kernel,) = compiled.kernels
    (part,) = kernel.config["parts"]
    assert (part["persistent"], part["ROWS"], part["COLS"]) == (True, 1, 32768)
    for name, actual, wanted in zip(fusion.output_names, got, evaluate(fusion, inputs), strict=True):
        result = compare(actual, wanted, fusion.value(name).dtype, reduction_size(fusion, name))
        assert result.ok, f"output {name}: {result.message}"
