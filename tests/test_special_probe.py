"""The first check's second look: the kernels run again on copies of the inputs holding NaN and
infinities, and a kernel that loses them is refused before its plan is remembered."""

from __future__ import annotations

import math

import pytest
import torch

from hfuse import settings
from hfuse.errors import ValidationError
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.reference import evaluate
from hfuse.runtime import execute, special_probe

ROW_MAX = """
with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[6, 5], contiguity=[True, True])
    fd.add_output(fd.ops.max(x, dims=[1]))
    fd.add_output(fd.ops.mul(x, 2.0))
"""


def _fusion(text: str = ROW_MAX):
    return load(text, device="cpu").fusion


def test_copies_keep_the_layout_and_hold_nan_and_infinities_at_the_first_last_and_middle_element():
    base = torch.arange(24.0).reshape(4, 6)
    gapped = base[:, :5]  # strides (6, 1) with a gap
    expanded = torch.arange(5.0).expand(3, 5)  # stride 0
    ints, flag = torch.arange(4), 1.5
    copies = special_probe.with_special_values([gapped, expanded, ints, flag])
    for original, copy in zip([gapped, expanded], copies[:2], strict=True):
        assert copy.shape == original.shape and copy.stride() == original.stride()
        flat = copy.flatten()
        assert math.isnan(flat[0]) and flat[-1] == math.inf and flat[flat.numel() // 2] == -math.inf
    assert copies[2] is ints and copies[3] == flag
    assert not gapped.isnan().any() and not expanded.isinf().any()  # the inputs are left alone
    assert special_probe.with_special_values([ints, flag]) is None


def _checked(fusion, inputs, run):
    compiled = compile_fusion(fusion, strategy="hfuse", alias_outputs=False)
    stages: dict[str, float] = {}
    return special_probe.check_special_values(compiled, inputs, run, stages), stages


def test_a_plan_that_loses_nan_is_refused_and_one_that_keeps_it_passes():
    fusion = _fusion()
    inputs = [torch.randn(6, 5)]

    def nan_skipping_max(probe):  # what a max that skips NaN would give
        row_max, doubled = evaluate(fusion, probe)
        return [torch.nan_to_num(row_max, nan=0.0), doubled]

    with pytest.raises(ValidationError, match=r"with NaN, \+inf and -inf in its inputs.*NaN where the other"):
        _checked(fusion, inputs, nan_skipping_max)
    looked, stages = _checked(fusion, inputs, lambda probe: evaluate(fusion, probe))
    assert looked and stages["special values"] >= 0


def test_no_look_without_float_inputs_with_indexing_or_without_memory():
    ints = _fusion(
        "with FusionDefinition() as fd:\n"
        "    x = fd.define_tensor(shape=[4], contiguity=[True], dtype=DataType.Int)\n"
        "    fd.add_output(fd.ops.add(x, x))\n"
    )
    assert _checked(ints, [torch.arange(4)], lambda probe: evaluate(ints, probe)) == (False, {})

    indexing = _fusion(
        "with FusionDefinition() as fd:\n"
        "    x = fd.define_tensor(shape=[4, 3], contiguity=[True, True])\n"
        "    i = fd.define_tensor(shape=[2], contiguity=[True], dtype=DataType.Int)\n"
        "    fd.add_output(fd.ops.index_select(x, i, dim=0))\n"
    )
    inputs = [torch.randn(4, 3), torch.tensor([0, 3])]
    assert _checked(indexing, inputs, lambda probe: evaluate(indexing, probe)) == (False, {})

    def out_of_memory(probe):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.00 GiB")

    assert _checked(_fusion(), [torch.randn(6, 5)], out_of_memory) == (False, {})


def test_the_generated_kernels_keep_nan_and_infinities_and_the_first_call_says_it_looked(
    monkeypatch, fresh_cache
):
    monkeypatch.setenv(settings.VALIDATE_SPECIAL_VALUES.env, "1")
    fusion = _fusion()
    for backend in ("hfuse", "naive"):
        _, profile, _ = execute(fusion, [torch.randn(6, 5)], backend=backend, profile=True)
        assert "special values" in dict(profile.stages_ms)


def test_auto_looks_only_where_kernels_run_on_a_gpu(monkeypatch):
    monkeypatch.setenv(settings.VALIDATE_SPECIAL_VALUES.env, "auto")
    assert special_probe.wanted() == torch.cuda.is_available()
    monkeypatch.setenv(settings.VALIDATE_SPECIAL_VALUES.env, "0")
    assert not special_probe.wanted()
