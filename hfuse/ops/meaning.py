"""What an op means, as torch code: the shared pieces of every op's meaning.

A meaning takes the operands (scalars as 0-dim tensors), the expr's attributes, the dtypes of its
outputs and the device, and returns one tensor or a tuple of them. Half, BFloat16 and fp8 math is done
in Float and rounded to the output dtype by the caller, as kernels that upcast after loading do.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Any

import torch

from hfuse.dtypes import DataType

Tensor = torch.Tensor
Meaning = Callable[
    [list[Tensor], dict[str, Any], Sequence[DataType], torch.device], Tensor | tuple[Tensor, ...]
]


def compute_dtype(dtype: DataType) -> torch.dtype:
    """The dtype math is done in for a result of `dtype`: reduced floats compute in Float."""
    return torch.float32 if dtype.is_reduced_float else dtype.torch


def upcast(t: Tensor) -> Tensor:
    if t.is_floating_point() and t.element_size() <= 2:
        return t.float()
    return t


def scalar_tensor(value: Any, dtype: DataType, device: torch.device) -> Tensor:
    """A number (or a one-element tensor) as a 0-dim tensor of `dtype`."""
    if isinstance(value, Tensor):
        value = value.item()
    # A Python float is held as Triton holds a number in a kernel: as a float32 where it lies in float32's
    # normal range (and for 0, inf and NaN), else as a double (1e300 stays 1e300, 1e-300 stays nonzero).
    held = torch.float64 if isinstance(value, float) and not _float32_range(value) else None
    return torch.tensor(value, dtype=held, device=device).to(dtype.torch)


def _float32_range(value: float) -> bool:
    size = abs(value)
    return size in (0.0, math.inf) or value != value or 2.0**-126 <= size <= (2 - 2.0**-23) * 2.0**127


class TorchOperands(enum.Enum):
    """How an elementwise op's operands are converted before its torch function sees them.
    Operands of an op with a Bool result keep their own dtype (reduced floats upcast) whatever this says."""

    COMPUTE = "to the result's compute dtype"
    OWN = "their own dtype, reduced floats upcast to Float"
    RESULT = "to the result's own dtype, not upcast"
    HELD_BY_RESULT = "to the result's own dtype (rounded as it holds them), then its compute dtype"
    BRANCHES = "the condition as it is, the branches to the result's compute dtype"


def elementwise_meaning(fn: Callable[..., Tensor], operands: TorchOperands) -> Meaning:
    """The meaning of an elementwise op: `fn` of its operands, converted as `operands` says."""

    def meaning(args: list[Tensor], attrs: dict[str, Any], outs: Sequence[DataType], device: torch.device):
        return fn(*_converted(args, operands, outs[0]))

    return meaning


def _converted(args: list[Tensor], operands: TorchOperands, out: DataType) -> list[Tensor]:
    if operands is TorchOperands.RESULT:
        return [a.to(out.torch) for a in args]
    if operands is TorchOperands.HELD_BY_RESULT:
        return [upcast(a.to(out.torch)) for a in args]
    if out is DataType.Bool or operands is TorchOperands.OWN:
        return [upcast(a) for a in args]
    if operands is TorchOperands.BRANCHES:
        return [args[0]] + [a.to(compute_dtype(out)) for a in args[1:]]
    return [a.to(compute_dtype(out)) for a in args]
