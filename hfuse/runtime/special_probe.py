"""The first check's second look: a plan's kernels run again on copies of its inputs holding NaN and
infinities, checked against the reference like the first run.

A plan that passed its first check is remembered (by its kernels, input layouts and device, across
processes) and later calls are not checked. Inputs of an ordinary first run hold no NaN or infinity, so
without this look a kernel that lost a NaN (a max that skipped it) would pass and give wrong results to
every later call that has one. Each float tensor input gets NaN at its first element, +inf at its last
and -inf at its middle one; the copies keep the inputs' shapes and strides (the kernels were generated
for them). No look for a fusion that writes into its inputs or indexes with tensors.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from hfuse import settings
from hfuse.errors import HfuseError, ValidationError
from hfuse.ir import Family
from hfuse.pipeline import Compiled
from hfuse.runtime.device import has_cuda
from hfuse.runtime.memory import out_of_memory_detail
from hfuse.runtime.validate import validate_outputs

SPECIAL_VALUES = ((math.nan, "first"), (math.inf, "last"), (-math.inf, "middle"))


def wanted() -> bool:
    """Whether first checks take this second look (HFUSE_VALIDATE_SPECIAL_VALUES)."""
    raw = settings.VALIDATE_SPECIAL_VALUES.raw().strip().lower()
    return has_cuda() if raw == settings.AUTO else settings.VALIDATE_SPECIAL_VALUES.as_bool()


def with_special_values(inputs: Sequence[Any]) -> list[Any] | None:
    """Copies of `inputs` whose float tensors hold NaN, +inf and -inf (other inputs as they are); None
    where no input is a float tensor with elements."""
    copies, changed = [], False
    for value in inputs:
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
            value, changed = _copy_with_specials(value), True
        copies.append(value)
    return copies if changed else None


def _copy_with_specials(tensor: torch.Tensor) -> torch.Tensor:
    """A copy with the same strides: the storage span the tensor reads, copied, seen through its view."""
    span = 1 + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride(), strict=True))
    storage = tensor.as_strided((span,), (1,)).clone()
    copy = storage.as_strided(tensor.shape, tensor.stride())
    count = tensor.numel()
    for value, where in SPECIAL_VALUES:
        linear = {"first": 0, "last": count - 1, "middle": count // 2}[where]
        copy[tuple(int(i) for i in torch.unravel_index(torch.tensor(linear), tensor.shape))] = value
    return copy


def check_special_values(
    compiled: Compiled,
    inputs: Sequence[Any],
    run: Callable[[Sequence[Any]], list[torch.Tensor]],
    stage_ms: dict[str, float],
) -> bool:
    """Runs the plan (`run`) on copies of `inputs` with special values and checks the results; a
    ValidationError that says so where they differ. False where it could not look: no float input, or
    no memory for the copies (the first check's verdict stands)."""
    if any(out.alias_input for out in compiled.fusion.outputs):
        return False  # written into its inputs: the reference would read what the kernels wrote
    if any(expr.op.family is Family.INDEXING for expr in compiled.fusion.exprs):
        return False  # a float made an index (NaN as -2**63) would read outside its tensor
    probe = with_special_values(inputs)
    if probe is None:
        return False
    start = time.perf_counter()
    try:
        results = run(probe)
        validate_outputs(compiled, probe, results, {})
    except ValidationError as err:
        raise ValidationError(
            f"with NaN, +inf and -inf in its inputs (the first, last and middle element of each float "
            f"input): {err}"
        ) from None
    except HfuseError:
        raise
    except Exception as err:
        if out_of_memory_detail(err) is None:
            raise
        return False
    stage_ms["special values"] = (time.perf_counter() - start) * 1e3
    return True
