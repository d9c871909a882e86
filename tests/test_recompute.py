"""Recomputation instead of materialization (`hfuse.segment.recompute`): a kernel recomputes a cheap
tensor from the inputs it can read rather than another kernel writing it for it, exactly as the
reference computes it, and only where that moves fewer bytes."""

from __future__ import annotations

import pytest
import torch
from segment_cases import Builder, layernorm_backward, random_inputs, rmsnorm_backward, run_groups

from hfuse.dtypes import DataType
from hfuse.examples import get_example
from hfuse.ir import Fusion, Op, Value
from hfuse.loader import load
from hfuse.ops import op_def
from hfuse.pipeline import compile_fusion
from hfuse.reference import evaluate
from hfuse.runtime import prepare
from hfuse.segment.model import SchedulerKind
from hfuse.tolerance import assert_close, reduction_size

F32, BF16, F64 = DataType.Float, DataType.BFloat16, DataType.Double
SHAPE = (24, 40)
ROW, COLUMN = (1,), (0,)


def column_center(shape=SHAPE) -> Fusion:
    """x - mean(x, dim=0): one kernel keeps each column on chip; nothing crosses, nothing is recomputed."""
    b = Builder()
    xf = b.cast(b.define_tensor(shape, BF16), F32)
    mean = b.op(Op.DIV, b.sum(xf, COLUMN), b.const(float(shape[0])))
    b.add_output(b.cast(b.op(Op.SUB, xf, b.bcast(mean, shape, [1])), BF16))
    return b.build()


def _two_directions(shared) -> Fusion:
    """`t = shared(b, x)` normalized along rows (one kernel) and summed over columns (another)."""
    b = Builder()
    x = b.define_tensor(SHAPE, BF16)
    t = shared(b, x)
    b.add_output(b.cast(b.op(Op.DIV, t, b.bcast(b.sum(t, ROW), SHAPE, [0])), BF16))
    b.add_output(b.sum(t, COLUMN))
    return b.build()


def _cast(b: Builder, x: Value) -> Value:
    return b.cast(x, F32)


def _exp(b: Builder, x: Value) -> Value:
    return b.op(Op.EXP, b.cast(x, F32))


def _dropout_scale(b: Builder, x: Value) -> Value:
    seed, offset = b.define_scalar(DataType.Int), b.define_scalar(DataType.Int)
    (u,) = b.add(Op.UNIFORM, [b.const(0.0), b.const(1.0), seed, offset], {"shape": SHAPE, "dtype": F32})
    return b.op(Op.MUL, b.cast(x, F32), u)


def _long_chain(b: Builder, x: Value) -> Value:
    t = b.cast(x, F32)
    for _ in range(12):
        t = b.op(Op.ADD, t, b.const(0.5))
    return t


def _sum_of_float_inputs(b: Builder, x: Value) -> Value:
    """Two float32 inputs: reading both again costs more than reading their sum back."""
    y, z = b.define_tensor(SHAPE, F32), b.define_tensor(SHAPE, F32)
    return b.op(Op.ADD, b.op(Op.ADD, y, z), b.cast(x, F32))


# name, fusion, the tensors the column kernel recomputes (by the names of their copies)
CASES = [
    ("layernorm-backward", layernorm_backward, {"T26_r", "T5_r"}),
    ("rmsnorm-backward", rmsnorm_backward, {"T25_r"}),
    ("column-center", column_center, set()),
    ("a-cast", lambda: _two_directions(_cast), {"T1_r"}),
    ("long-math", lambda: _two_directions(_exp), set()),
    ("a-random-op", lambda: _two_directions(_dropout_scale), set()),
    ("longer-than-the-bound", lambda: _two_directions(_long_chain), set()),
    ("more-bytes-to-recompute", lambda: _two_directions(_sum_of_float_inputs), set()),
]


def _compiled(build):
    fusion = build()
    return fusion, compile_fusion(fusion, alias_outputs=False)


@pytest.mark.parametrize(("build", "copies"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_recomputes_only_cheap_chains_that_save_bytes(build, copies):
    _, compiled = _compiled(build)
    assert {r.copy for r in compiled.segmentation.recomputed} == copies
    assert (compiled.recomputed is not None) == bool(copies)
    copied = [e for e in compiled.scheduled.exprs if any(n.endswith("_r") for n in e.outputs)]
    assert all(op_def(e.op).is_elementwise or e.op is Op.BROADCAST_IN_DIM for e in copied)
    written = {name for g in compiled.segmentation.groups for name in g.outputs}
    for r in compiled.segmentation.recomputed:
        assert r.tensor not in written and r.copy not in written


@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_the_groups_compute_what_the_reference_computes_bit_for_bit(build):
    """The copies are the same ops in the same order: evaluated group by group, every output is equal."""
    fusion, compiled = _compiled(build)
    inputs = random_inputs(fusion, seed=3)
    expected = evaluate(fusion, inputs)
    actual = run_groups(compiled.scheduled, compiled.segmentation, inputs)
    for got, want in zip(actual, expected, strict=True):
        assert torch.equal(got, want)


@pytest.mark.usefixtures("fresh_cache")
@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_the_generated_kernels_match_the_reference(build, device):
    fusion = build()
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in random_inputs(fusion, seed=5)]
    actual = prepare(fusion, inputs, alias_outputs=False).call(inputs)
    for got, want, out in zip(actual, evaluate(fusion, inputs), fusion.outputs, strict=True):
        assert_close(got, want, reduction_size=reduction_size(fusion, out.name))


@pytest.mark.parametrize("subset", ["extended", "extended-large"])
@pytest.mark.parametrize("name", ["layernorm_backward", "rmsnorm_backward"])
def test_the_column_kernel_reads_bf16_inputs_and_the_row_kernel_writes_no_float32_intermediate(name, subset):
    fusion = load(get_example(name, subset).text, device="meta").fusion
    compiled = compile_fusion(fusion, alias_outputs=False)
    groups = compiled.segmentation.groups
    # at the large size the row kernel also sums the columns: the two are the branches of one group
    rows, columns = groups[0].branches if len(groups) == 1 else groups
    assert (rows.kind, rows.space.reduced_dims) == (SchedulerKind.NORMALIZATION, ROW)
    assert (columns.kind, columns.space.reduced_dims) == (SchedulerKind.REDUCTION, COLUMN)
    values = compiled.scheduled.value_map
    full = rows.space.shape
    assert [n for n in rows.outputs if values[n].shape == full] == [fusion.outputs[0].name]
    read_in_full = [n for n in columns.inputs if values[n].shape == full]
    assert read_in_full and all(n in fusion.inputs and values[n].dtype is BF16 for n in read_in_full)
    assert all(values[n].numel <= full[0] for n in columns.inputs if n not in read_in_full)
    assert compiled.kernel_count == 2


def test_the_segmentation_report_and_the_stages_show_the_copies():
    from hfuse.segment.report import format_segmentation
    from hfuse.stages import compile_stages

    _, compiled = _compiled(layernorm_backward)
    report = format_segmentation(compiled.scheduled, compiled.segmentation)
    assert "tensors recomputed by the kernel that reads them" in report
    assert "T26_r: Float[24, 40] (3.8 kB): segment 1 computes T26 again from T0, T1, T2, T3" in report
    stage = next(s for s in compile_stages(compiled) if s.name == "recomputed by readers")
    assert "+    T26_r = fd.ops.mul(T5_r, T10_r)" in stage.diff
