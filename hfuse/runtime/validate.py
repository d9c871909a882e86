"""The first run of every plan is checked against the torch reference, output by output."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.errors import ValidationError
from hfuse.ir import Fusion
from hfuse.magnitude import output_magnitudes
from hfuse.pipeline import Compiled
from hfuse.reference import evaluate
from hfuse.runtime.memory import out_of_memory_detail
from hfuse.runtime.timing import wall_ms
from hfuse.segment.model import Group
from hfuse.tolerance import Comparison, compare, reduction_size


def validate_outputs(
    compiled: Compiled, inputs: Sequence[Any], results: Sequence[torch.Tensor], stage_ms: dict[str, float]
) -> float:
    """The largest absolute error over all outputs; ValidationError naming the output, the segment that
    wrote it and the error where one is outside its dtype's tolerance. The reference runs on the inputs'
    device and the comparison where the outputs are; their times go into `stage_ms`."""
    expected, stage_ms["reference"] = wall_ms(lambda: evaluate(compiled.fusion, list(inputs)))
    worst, stage_ms["compare"] = wall_ms(lambda: _compare_all(compiled, inputs, results, expected))
    return worst


def _compare_all(
    compiled: Compiled,
    inputs: Sequence[Any],
    results: Sequence[torch.Tensor],
    expected: Sequence[torch.Tensor],
) -> float:
    """Every output within its tolerance (`compare_outputs`); the outputs' magnitudes are not worked out
    for a fusion that writes outputs into its inputs, which the reference has already done: the inputs
    it would read again are gone."""
    fusion = compiled.scheduled
    producers = {name: group for group in compiled.segmentation.groups for name in group.outputs}
    rescalable = not any(out.alias_input for out in compiled.fusion.outputs)
    compare_output = compare_outputs(
        lambda: magnitudes_if_they_fit(compiled.fusion, inputs) if rescalable else None
    )
    worst = 0.0
    for index, (out, actual, wanted) in enumerate(zip(fusion.outputs, results, expected, strict=True)):
        value = fusion.value(out.name)
        comparison = compare_output(actual, wanted, value.dtype, reduction_size(fusion, out.name), index)
        if not comparison.ok:
            writer = _writer(compiled, producers.get(out.name))
            raise ValidationError(
                f"output {out.name} ({value.describe()}), written by {writer}, "
                f"differs from the torch reference: {comparison.message}. This is a bug in hfuse's "
                "generated code: report it with the fusion definition; backend='eager' runs it correctly"
            )
        worst = max(worst, comparison.max_abs_error)
    return worst


CompareOutput = Callable[[torch.Tensor, torch.Tensor, DataType, int, int], Comparison]


def compare_outputs(magnitudes: Callable[[], list[torch.Tensor] | None]) -> CompareOutput:
    """`compare` of an output (actual, expected, dtype, reduction size, its index among the fusion's
    outputs); a float output outside its dtype's tolerance is compared again with the tolerance scaled
    by the size of the terms that make each element (`magnitudes()`, worked out at the first such output;
    None: the plain verdict stands): two correct roundings of a near cancellation differ by units of the
    terms, not of the result."""
    known = functools.cache(magnitudes)

    def compare_output(
        actual: torch.Tensor, expected: torch.Tensor, dtype: DataType, size: int, index: int
    ) -> Comparison:
        comparison = compare(actual, expected, dtype, size)
        if comparison.ok or not dtype.is_float:
            return comparison
        terms = known()
        return comparison if terms is None else compare(actual, expected, dtype, size, terms[index])

    return compare_output


def magnitudes_if_they_fit(fusion: Fusion, inputs: Sequence[Any]) -> list[torch.Tensor] | None:
    """The outputs' magnitudes; None where there is no memory for them (every value in float64): the
    plain comparison's verdict stands."""
    try:
        return output_magnitudes(fusion, list(inputs))
    except Exception as err:
        if out_of_memory_detail(err) is None:
            raise
        return None


def _writer(compiled: Compiled, group: Group | None) -> str:
    if group is None:
        return "no segment (it is an input)"
    kernel = compiled.kernel_of(group)
    if kernel is not None:
        return f"kernel {kernel.name} (segment {group.id})"
    return f"segment {group.id} ({group.kind.value}, no kernel)"
