"""The analysis of two merged kernels, continued from the analyses of the two.

A merge joins a producer kernel and a kernel reading it (vertical), or two kernels neither of which
reaches the other (independent). The merged kernel writes a subset of what the two wrote, so the
merger works its outputs out from theirs. Nothing in the producer reads the other side, so the
producer's roles and walks stay what they were; the reader's roles are assigned again only when it
reads a row or full value of the producer, and the walks from what it writes start over (through
the producer's, which are kept). Independent kernels keep both. The cost is that of the reading
side, not of the union.

The result is `analysis.kernel_state` of the union analysed in the order first side, then second
(the order the merge tried them in, which decides which reduction and which output the note names),
except that what a later merge continues from (the first reduction, the first full value, the first
transposed output) is kept in position order, as a group's own analysis has it. A test checks both
against analyses from scratch on random fusions.

The states handed to `merged_state` belong to the merged state once the merge is legal (their dicts
are reused): the two sides must not be used again.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Container, Sequence

from hfuse.ir import Value
from hfuse.segment.analysis import (
    KernelState,
    Refusal,
    TransposedOutput,
    WalkMemo,
    assign_roles,
    first_broadcast_back,
    first_transposed_input,
    misfit,
    pointwise_fit,
    reduction_fit,
    shape_refusal,
)
from hfuse.segment.graph import FusionIndex
from hfuse.segment.model import IterSpace


def merged_state(
    index: FusionIndex,
    first: KernelState,
    second: KernelState,
    second_positions: Sequence[int],
    second_inputs: Sequence[str],
    outputs: Sequence[str],
    produced: tuple[Container[str], Container[str]],
    *,
    independent: bool,
) -> KernelState | Refusal:
    """The state of the kernel computing both sides and writing `outputs` (in position order). Unless
    `independent`, `first` is the producer. `second_positions` (in any order, copied scalar exprs left
    out) and `second_inputs` are the second side's exprs and inputs; `produced` the values computed by
    the union and by the first side."""
    values = index.values
    written = [values[name] for name in outputs if values[name].is_tensor]
    if first.reduction is None and second.reduction is None:
        refusal = shape_refusal(written)
        if refusal is not None:
            return refusal
        space = IterSpace(written[0].shape if written else ())
        if independent:
            found = [t for t in (first.transposed, second.transposed) if t is not None]
            kept = min(found, default=None, key=lambda t: t[0])
            named = found[0] if found else None
            walks = _joined(first.walks, second.walks)
        else:
            walks = first.walks
            kept, named = _transposed_outputs(index, written, walks, *produced)
        return KernelState(pointwise_fit(space, named), None, {}, None, kept, walks)
    sides = [s for s in (first, second) if s.reduction is not None]
    if len(sides) == 2 and first.fit.space != second.fit.space:
        return Refusal(f"the reductions iterate over {first.fit.space} and {second.fit.space}")
    space = sides[0].fit.space
    second_roles, second_back = second.roles, second.broadcast_back
    if not independent and first.roles and any(name in first.roles for name in second_inputs):
        second_roles = {}
        roles = ChainMap(second_roles, first.roles)
        reduction = index.exprs[sides[0].reduction]
        second_positions = sorted(second_positions)
        for p in second_positions:
            refusal = assign_roles(index.exprs[p], values, space, roles, reduction)
            if refusal is not None:
                return refusal
        second_back = first_broadcast_back(index, second_positions, roles)
    refusal = misfit(written, space)
    if refusal is not None:
        return refusal
    backs = [p for p in (first.broadcast_back, second_back) if p is not None]
    fit = reduction_fit(index, space, sides[0].reduction, backs[0] if backs else None, written)
    reduction = min(s.reduction for s in sides)
    return KernelState(fit, reduction, _joined(first.roles, second_roles), min(backs, default=None), None, {})


def _transposed_outputs(
    index: FusionIndex,
    written: Sequence[Value],
    walks: WalkMemo,
    produced: Container[str],
    by_first: Container[str],
) -> tuple[TransposedOutput | None, TransposedOutput | None]:
    """The first written output read transposed in position order, and the one the note names: the first
    of the first side's outputs, else the first of the second's."""
    kept = named = None
    for value in written:
        from_first = value.name in by_first
        if kept is not None and not from_first:
            continue
        inner = index.stored_inner_dim(value.name)
        if inner is None:
            continue
        found = first_transposed_input(index, (value.name, inner), walks, produced)
        if found is None:
            continue
        output = (index.output_key[value.name], value.name, inner, found)
        kept = kept or output
        if from_first:
            return kept, output
        named = named or output
    return kept, named


def _joined(first: dict, second: dict) -> dict:
    """Both dicts in one, reusing the larger."""
    large, small = (first, second) if len(first) >= len(second) else (second, first)
    large.update(small)
    return large
