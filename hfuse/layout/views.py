"""Views: the storage offset and strides of a movement's result, where it can share its operand's storage.

A result is a view of its operand when every position reads inside the operand and a reshape only
splits or merges dims that are contiguous with each other. The strides are the ones torch gives the
same view (`Tensor.view`, `permute`, `expand`, slicing), including those of dims of extent 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hfuse.ir import contiguous_strides
from hfuse.layout.movement import Along, Movement, New, Regroup, regroup


@dataclass(frozen=True, slots=True)
class View:
    """Elements of a storage: position p holds element offset + sum(p[d] * strides[d])."""

    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]


def view_after(move: Movement, view: View) -> View | None:
    """The result of `move` as a view of the storage its operand is the `view` of, or None where the
    result must be copied (a reshape merging dims that are not contiguous, reads outside the operand)."""
    if any(isinstance(run, Regroup) for run in move.runs):
        regrouped = _regrouped_strides(move, view.strides)
        return None if regrouped is None else View(view.offset, move.result, regrouped)
    strides, offset = [0] * len(move.result), view.offset
    for run in move.runs:
        match run:
            case Along(source, result, start, step):
                if run.inside(move.source[source], move.result[result]) != range(move.result[result]):
                    return None
                strides[result] = view.strides[source] * step
                offset += start * view.strides[source]
            case New(result):
                strides[result] = 0
    return View(offset, move.result, tuple(strides))


def reshaped_strides(
    shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int]
) -> tuple[int, ...] | None:
    """Strides of `new_shape` viewing the same elements, or None where torch.view refuses (a reshape
    that merges dims which are not contiguous with each other)."""
    return _regrouped_strides(Movement(tuple(shape), tuple(new_shape), regroup(shape, new_shape)), strides)


def _regrouped_strides(move: Movement, strides: Sequence[int]) -> tuple[int, ...] | None:
    """Within each run of a reshape the dims of extent > 1 must be contiguous with each other; the run's
    result dims then step through memory from the stride of its innermost one. A dim of extent 1 gets
    the stride a dim just outside the ones inside it would have (what torch gives it)."""
    shape, result = move.source, move.result
    if not shape or math.prod(shape) == 0:
        return contiguous_strides(result)
    new_strides = [0] * len(result)
    carried = strides[-1]
    for run in reversed(move.runs):
        assert isinstance(run, Regroup), "a reshape's runs are all regroups"
        walked = [d for d in run.source if shape[d] != 1]
        if any(
            strides[outer] != strides[inner] * shape[inner]
            for outer, inner in zip(walked, walked[1:], strict=False)
        ):
            return None
        if walked:
            carried = strides[walked[-1]]
        for d in reversed(run.result):
            new_strides[d] = carried
            carried *= result[d]
    return tuple(new_strides)
