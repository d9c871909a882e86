"""One fusion through the whole engine under every strategy, checked against the torch reference: used by
the random-fusion property test and the GPU fuzz campaign."""

from __future__ import annotations

import torch
from random_fusions import random_inputs

from hfuse.ir import Fusion
from hfuse.magnitude import output_magnitudes
from hfuse.pipeline import Compiled
from hfuse.reference import evaluate
from hfuse.runtime import execute
from hfuse.tolerance import compare, reduction_size

# (backend, alias_outputs): hfuse with views of inputs served without kernels, hfuse with every
# output computed, and one kernel per op chain.
CONFIGS = (("hfuse", True), ("hfuse", False), ("naive", False))


def _storage(tensor: torch.Tensor) -> int:
    return tensor.untyped_storage().data_ptr()


def _check_storage(compiled: Compiled, inputs: list, results: list[torch.Tensor]) -> None:
    """Aliased outputs are views of their input's storage; every other output has storage of its own."""
    fusion = compiled.scheduled
    aliases = {a.output: a.input for a in compiled.segmentation.aliases}
    if not compiled.alias_outputs or compiled.strategy == "naive":
        assert not aliases, f"{compiled.strategy} with aliasing off served views: {sorted(aliases)}"
    inputs_by_name = dict(zip(fusion.inputs, inputs, strict=True))
    input_storages = {_storage(t) for t in inputs if isinstance(t, torch.Tensor)}
    for name, result in zip(fusion.output_names, results, strict=True):
        if name in aliases:
            assert _storage(result) == _storage(inputs_by_name[aliases[name]]), f"{name} is not a view"
        else:
            assert _storage(result) not in input_storages, f"{name} was written into an input"


def check_against_reference(fusion: Fusion, results: list[torch.Tensor], inputs: list, label: str) -> None:
    """As the runtime's validation: an output that fails its dtype's tolerance is checked again against the
    magnitude of the terms that make it (a near cancellation rounded in another order passes)."""
    expected = evaluate(fusion, inputs)
    assert len(results) == len(expected), label
    magnitudes = None
    for index, (out, got, want) in enumerate(zip(fusion.outputs, results, expected, strict=True)):
        assert got.dtype == want.dtype, f"{label}: {out.name} is {got.dtype}, expected {want.dtype}"
        dtype, size = fusion.value(out.name).dtype, reduction_size(fusion, out.name)
        comparison = compare(got, want, dtype, size)
        if not comparison.ok and dtype.is_float:
            magnitudes = magnitudes or output_magnitudes(fusion, inputs)
            comparison = compare(got, want, dtype, size, magnitudes[index])
        assert comparison.ok, f"{label}: {out.name}: {comparison.message}"


def check_engine(fusion: Fusion, device: str) -> list[Compiled]:
    """Runs `fusion` under every config: the first run on one set of inputs (the runtime validates it, a
    ValidationError on a mismatch), the second on fresh inputs, compared here. Returns what was compiled."""
    compiled_runs = []
    for backend, alias_outputs in CONFIGS:
        label = f"{backend}, alias_outputs={alias_outputs}"
        inputs = random_inputs(fusion, seed=0, device=device)
        results, _, compiled = execute(fusion, inputs, backend=backend, alias_outputs=alias_outputs)
        _check_storage(compiled, inputs, results)
        del results
        fresh = random_inputs(fusion, seed=1, device=device)
        results, _, _ = execute(fusion, fresh, backend=backend, alias_outputs=alias_outputs)
        check_against_reference(fusion, results, fresh, label)
        compiled_runs.append(compiled)
    return compiled_runs
