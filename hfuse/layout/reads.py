"""Which operand elements a movement's result reads: masks of needed elements pushed back through it."""

from __future__ import annotations

import torch

from hfuse.layout.movement import Along, Drop, Movement, New, Run


def reads_every_element(move: Movement) -> bool:
    """Whether the whole result reads every element of the operand (not so for a slice, a cropping pad,
    or a strided one). An empty result counts as reading its operand whole."""
    for run in move.runs:
        if isinstance(run, Along):
            extent = move.source[run.source]
            valid = run.inside(extent, move.result[run.result])
            first = valid.start * run.step + run.start
            if range(first, first + len(valid) * run.step, run.step) != range(extent):
                return False
    return True


def read_mask(move: Movement, needed: torch.Tensor) -> torch.Tensor:
    """The mask of operand elements that the result elements selected by `needed` (a bool mask of the
    result's shape) read."""
    new = [run.result for run in move.runs if isinstance(run, New)]
    parts = sorted((_part(run, move) for run in move.runs if not isinstance(run, New)), key=lambda p: p[:2])
    mask = needed.permute(new + [d for _, results, _, _ in parts for d in results])
    if new:
        mask = mask.flatten(0, len(new) - 1).any(0)
    mask = mask.reshape([extent for _, _, extents, _ in parts for extent in extents])
    targets, sources = [], []
    for dims, _, _, run in parts:
        if isinstance(run, Along):
            valid = run.inside(move.source[run.source], move.result[run.result])
            first = valid.start * run.step + run.start
            targets.append(slice(first, first + len(valid) * run.step, run.step))
            sources.append(slice(valid.start, valid.stop))
        else:
            targets += [slice(None)] * len(dims)
            sources += [slice(None)] * len(dims)
    read = torch.zeros(move.source, dtype=torch.bool)
    read[tuple(targets)] = mask[tuple(sources)]
    return read


def _part(run: Run, move: Movement) -> tuple[tuple[int, ...], tuple[int, ...], list[int], Run]:
    """(operand dims, result dims, the extents of the result dims put in operand order, the run)."""
    match run:
        case Along(source, result):
            return (source,), (result,), [move.result[result]], run
        case Drop(source):
            return (source,), (), [1], run
    return run.source, run.result, [move.source[d] for d in run.source], run
