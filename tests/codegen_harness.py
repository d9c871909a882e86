"""Runs generated kernels as the runtime does, without the runtime: write the source to a file named by
its hash, import it, launch it on poisoned output buffers, and compare with the reference."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import torch

from hfuse.builder import FusionBuilder
from hfuse.codegen import Options, generate
from hfuse.codegen.kernel import largest_offset
from hfuse.codegen.model import KernelSource
from hfuse.dtypes import DataType
from hfuse.ir import Family, Fusion, Op, Value
from hfuse.reference import evaluate_values
from hfuse.segment.model import Group, IterSpace, SchedulerKind
from hfuse.tolerance import assert_close

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

# split reductions with thresholds shrunk so that small shapes split: parts of at least 16 columns, about
# 16 programs in all
SPLIT = Options(
    persistent_max_cols=8,
    persistent_reread_cols=0,
    loop_cols=8,
    row_tile=16,
    outer_tile=16,
    split_below_programs=8,
    split_min_cols=32,
    split_min_part=16,
    split_min_cols_outer=32,
    split_min_part_outer=16,
    split_programs=16,
)

# inputs where a unary op is defined (and not ill-conditioned); other ops take [-3, 3)
DOMAIN = {
    Op.ACOS: (-0.9, 0.9), Op.ASIN: (-0.9, 0.9), Op.ATANH: (-0.9, 0.9), Op.ERFINV: (-0.9, 0.9),
    Op.ACOSH: (1.1, 4.0), Op.ERFCINV: (0.1, 1.9), Op.LOG: (0.1, 4.0), Op.LOG10: (0.1, 4.0),
    Op.LOG2: (0.1, 4.0), Op.SQRT: (0.1, 4.0), Op.RSQRT: (0.1, 4.0), Op.LGAMMA: (0.1, 6.0),
    Op.LOG1P: (-0.5, 3.0), Op.RECIPROCAL: (0.5, 3.0), Op.TAN: (-1.2, 1.2),
}  # fmt: skip
_FOLDER = Path(tempfile.gettempdir()) / "hfuse-codegen-tests"


def load(kernel: KernelSource) -> ModuleType:
    digest = hashlib.sha256(kernel.source.encode()).hexdigest()[:24]
    name = f"hfuse_test_kernel_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    _FOLDER.mkdir(exist_ok=True)
    path = _FOLDER / f"{name}.py"
    # written whole under another name, then renamed: other test processes may load the same kernel, and
    # Triton's interpreter reads the file again at the first launch
    partial = _FOLDER / f"{name}.{os.getpid()}.partial"
    partial.write_text(kernel.source)
    os.replace(partial, path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def poisoned(value: Value) -> torch.Tensor:
    buffer = torch.empty_strided(value.shape, value.strides, dtype=value.dtype.torch, device=DEVICE)
    if value.dtype.is_float:
        return buffer.fill_(float("nan"))
    if value.dtype is DataType.Bool:
        return buffer.fill_(True)
    return buffer.fill_(torch.iinfo(value.dtype.torch).max)


def random_tensor(value: Value, low: float = -3.0, high: float = 3.0) -> torch.Tensor:
    """Random values laid out with the value's own strides (a strided view of a larger buffer)."""
    size = largest_offset(value) + 1 if value.numel else 0
    dtype = value.dtype.torch
    if value.dtype is DataType.Bool:
        storage = torch.rand(size, device=DEVICE) > 0.5
    elif value.dtype.is_int:
        storage = torch.randint(int(low), int(high), (size,), device=DEVICE, dtype=dtype)
    else:
        storage = (torch.rand(size, device=DEVICE, dtype=torch.float64) * (high - low) + low).to(dtype)
    return storage.as_strided(value.shape, value.strides)


def planned(group: Group, fusion: Fusion) -> Group:
    """A hand-built kernel group with the plan the segmenter gives a group of its kind: a reduction
    group iterates over the space of its first reduction, its outputs of another shape holding one value
    per row; any other over the shape of its outputs."""
    values = fusion.value_map
    reductions = [e for e in group.exprs if e.op.family in (Family.REDUCTION, Family.VAR)]
    if group.kind in (SchedulerKind.REDUCTION, SchedulerKind.NORMALIZATION) and reductions:
        space = IterSpace.reduced_by(reductions[0], values)
        rows = tuple(n for n in group.outputs if values[n].shape != space.shape)
        return dataclasses.replace(group, space=space, row_outputs=rows)
    shape = next((values[n].shape for n in group.outputs if values[n].is_tensor), ())
    return dataclasses.replace(group, space=IterSpace(shape))


def max_and_exp_sum(b: FusionBuilder, x: str, dim: int) -> tuple[str, str, str]:
    """A softmax's steps over `dim` of the float32 `x`, kept: its max, exp(x - max) and their sum."""
    over = {"dims": [dim], "keepdim": True, "dtype": DataType.Float}
    (top,) = b.add(Op.MAX, [x], over)
    (e,) = b.add(Op.EXP, [b.add(Op.SUB, [x, top])[0]])
    (total,) = b.add(Op.SUM, [e], over)
    return top, e, total


def whole_group(fusion: Fusion, kind: SchedulerKind, group_id: int = 0) -> Group:
    """Every expr of the fusion in one group writing the fusion's outputs, planned (see `planned`). A
    pointwise or transpose kernel iterates over one shape: outputs of several become the branches of one
    horizontal launch, a branch per shape."""
    inputs, outputs = tuple(fusion.inputs), fusion.output_names
    shapes = dict.fromkeys(fusion.value(n).shape for n in outputs)
    if kind not in (SchedulerKind.POINTWISE, SchedulerKind.TRANSPOSE) or len(shapes) < 2:
        return planned(Group(group_id, kind, fusion.exprs, inputs, outputs), fusion)
    branches = tuple(
        planned(
            Group(
                group_id + n,
                kind,
                fusion.exprs,
                inputs,
                tuple(o for o in outputs if fusion.value(o).shape == s),
            ),
            fusion,
        )
        for n, s in enumerate(shapes, start=1)
    )
    return Group(group_id, SchedulerKind.HORIZONTAL, fusion.exprs, inputs, outputs, branches)


def run(group: Group, fusion: Fusion, env: dict[str, object], options: Options | None = None) -> dict:
    """Launches the group's kernel on `env` (values by name); returns its outputs by name."""
    kernel = generate(group, fusion, options)
    module = load(kernel)
    values = fusion.value_map
    outputs = [poisoned(values[name]) for name in kernel.outputs]
    module.launch(*(env[name] for name in kernel.inputs), *outputs)
    return dict(zip(kernel.outputs, outputs, strict=True))


def random_inputs(fusion: Fusion, ranges: dict[str, tuple[float, float]] | None = None) -> list[object]:
    ranges = ranges or {}
    values = fusion.value_map
    inputs = []
    for name in fusion.inputs:
        value = values[name]
        low, high = ranges.get(name, (-3.0, 3.0))
        if value.is_scalar:
            inputs.append(float(low + (high - low) * 0.37) if value.dtype.is_float else int(high) - 1)
        else:
            inputs.append(random_tensor(value, low, high))
    return inputs


def check(
    fusion: Fusion,
    groups: Sequence[Group],
    ranges: dict[str, tuple[float, float]] | None = None,
    options: Options | None = None,
    reduction_size: int = 1,
) -> None:
    """Runs the groups in order on fresh random inputs and compares every written value with the reference."""
    inputs = random_inputs(fusion, ranges)
    expected = evaluate_values(fusion, inputs)
    env: dict[str, object] = dict(zip(fusion.inputs, inputs, strict=True))
    for group in groups:
        env.update(run(group, fusion, env, options))
    for group in groups:
        for name in group.outputs:
            assert_close(env[name], expected[name], reduction_size=reduction_size)
