"""`hfuse.compile`: passes -> segmentation -> codegen, every stage kept."""

from __future__ import annotations

import pytest
import torch

import hfuse
from hfuse import pipeline
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.ir import Fusion, Op
from hfuse.runtime import execute
from hfuse.segment.model import SchedulerKind
from hfuse.segment.report import format_segmentation


def _pointwise() -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([8, 32], DataType.Float)
    (y,) = b.add(Op.EXP, [x])
    (z,) = b.add(Op.MUL, [y, x])
    b.add_output(z)
    return b.build()


def _view_of_input() -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([8, 32], DataType.Float)
    (top,) = b.add(Op.SLICE, [x], {"starts": [0, 0], "ends": [4, 32], "strides": [1, 1]})
    (flipped,) = b.add(Op.PERMUTE, [top], {"dims": [1, 0]})
    b.add_output(flipped)
    return b.build()


def _row_sum() -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([8, 32], DataType.Float)
    (total,) = b.add(Op.SUM, [x], {"dims": [1]})
    b.add_output(total)
    return b.build()


CASES = [
    # (fusion, strategy, alias_outputs, kinds of the groups in order)
    (_pointwise, "hfuse", True, [SchedulerKind.POINTWISE]),
    (_view_of_input, "hfuse", True, [SchedulerKind.ALIAS]),
    (_view_of_input, "hfuse", False, [SchedulerKind.TRANSPOSE]),
    (_view_of_input, "naive", True, [SchedulerKind.TRANSPOSE]),
    (_row_sum, "hfuse", True, [SchedulerKind.REDUCTION]),
]
CASE_IDS = ["pointwise", "alias", "alias-off", "naive-never-aliases", "reduction"]


@pytest.mark.parametrize("build, strategy, alias_outputs, kinds", CASES, ids=CASE_IDS)
def test_compile_keeps_every_stage(build, strategy, alias_outputs, kinds):
    fusion = build()
    compiled = hfuse.compile(fusion, strategy=strategy, alias_outputs=alias_outputs)
    assert compiled.fusion is fusion and compiled.passes.original is fusion
    assert [name for name, _ in compiled.passes.stages][0] == "as defined"
    assert compiled.segmentation.strategy == strategy
    assert [g.kind for g in compiled.segmentation.groups] == kinds
    launching = [g for g in compiled.segmentation.groups if g.kind.launches_kernel]
    assert [k.group_id for k in compiled.kernels] == [g.id for g in launching]
    assert all(compiled.kernel_of(g) is k for g, k in zip(launching, compiled.kernels, strict=True))
    assert all("@triton.jit" in k.source and "def launch" in k.source for k in compiled.kernels)
    assert set(compiled.stage_ms) == {"passes", "segment", "codegen"}
    assert len(compiled.kernel_codegen_ms) == len(compiled.kernels)
    assert (compiled.segmentation.aliases != ()) == (SchedulerKind.ALIAS in kinds)


def test_compile_is_exported_under_its_nvfuser_name():
    assert hfuse.compile is pipeline.compile_fusion
    assert hfuse.Compiled is pipeline.Compiled


def test_eager_plan_is_the_whole_definition_in_one_torch_segment():
    fusion = _pointwise()
    compiled = pipeline.compile_eager(fusion)
    (group,) = compiled.segmentation.groups
    assert group.kind is SchedulerKind.TORCH
    assert (group.exprs, group.outputs) == (fusion.exprs, fusion.output_names)
    assert compiled.kernels == () and compiled.passes is None and compiled.scheduled is fusion


def test_unknown_strategy_is_refused_by_name():
    with pytest.raises(UnsupportedError, match="strategy 'fastest' is unknown"):
        hfuse.compile(_pointwise(), strategy="fastest")


def _long_row_sums() -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([2, 32768], DataType.Float)  # 2 rows: one program at the default heuristics
    (total,) = b.add(Op.SUM, [x], {"dims": [1]})
    b.add_output(total)
    return b.build()


@pytest.mark.usefixtures("fresh_cache")
def test_a_split_reduction_is_one_segment_and_two_launches(device):
    fusion = _long_row_sums()
    x = torch.randn(2, 32768, device=device)
    (total,), profile, compiled = execute(fusion, [x], profile=True)
    assert compiled.segmentation.kernel_count == 1 and len(compiled.kernels) == 1
    assert compiled.kernels[0].launches == 2 and compiled.launches == {0: 2}
    assert compiled.kernel_count == profile.segments == 2
    assert [k.launches for k in profile.kernel_profiles] == [2]
    report = format_segmentation(compiled.scheduled, compiled.segmentation, compiled.launches)
    assert "2 kernel launch(es), 1 segment(s)" in report and "2 launches: a split reduction" in report
    # 32768 terms summed in another order: float32 rounding alone reaches about 1e-3 where a sum is near 0
    torch.testing.assert_close(total, x.double().sum(1).float(), rtol=1e-5, atol=2e-3)
