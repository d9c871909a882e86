"""The index map of a movement: the operand position each result position reads.

Positions are of any kind an `Arithmetic` computes with: Python ints (`Numbers`, for tests and
checks), or Triton source text (codegen's arithmetic, which names long expressions as it goes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from hfuse.layout.movement import Along, Movement, Regroup

P = TypeVar("P")


class Arithmetic(Protocol[P]):
    """The few operations on positions that the index map needs."""

    zero: P

    def affine(self, position: P, step: int, start: int) -> P:
        """position * step + start"""
        ...

    def at_least(self, position: P, low: int) -> P:
        """The condition position >= low."""
        ...

    def below(self, position: P, high: int) -> P:
        """The condition position < high."""
        ...

    def regroup(self, positions: Sequence[P], extents: Sequence[int], into: Sequence[int]) -> list[P]:
        """The row-major position over dims of `extents` re-expressed over dims of `into` (same product)."""
        ...


def source_index(move: Movement, index: Sequence[P], arithmetic: Arithmetic[P]) -> tuple[list[P], list[P]]:
    """The operand position that the result position `index` reads, and the conditions under which it
    lies inside the operand (none for most movements; outside, a pad reads its value and a cat another
    piece). A dropped dim, and a dim of extent 1 that is always inside, is read at 0; a new dim of the
    result reads nothing new."""
    dims = [arithmetic.zero] * len(move.source)
    inside: list[P] = []
    for run in move.runs:
        match run:
            case Along(source, result, start, step):
                valid = run.inside(move.source[source], move.result[result])
                bounds = []
                if valid.start > 0:
                    bounds.append(arithmetic.at_least(index[result], valid.start))
                if valid.stop < move.result[result]:
                    bounds.append(arithmetic.below(index[result], valid.stop))
                if bounds or move.source[source] != 1:
                    dims[source] = arithmetic.affine(index[result], step, start)
                inside += bounds
            case Regroup(source, result):
                extents = [move.result[d] for d in result]
                into = [move.source[d] for d in source]
                positions = arithmetic.regroup([index[r] for r in result], extents, into)
                for d, position in zip(source, positions, strict=True):
                    dims[d] = position
    return dims, inside


class Numbers:
    """Positions as Python ints."""

    zero = 0

    def affine(self, position: int, step: int, start: int) -> int:
        return position * step + start

    def at_least(self, position: int, low: int) -> bool:
        return position >= low

    def below(self, position: int, high: int) -> bool:
        return position < high

    def regroup(self, positions: Sequence[int], extents: Sequence[int], into: Sequence[int]) -> list[int]:
        linear = 0
        for position, extent in zip(positions, extents, strict=True):
            linear = linear * extent + position
        digits = []
        for extent in reversed(into):
            linear, digit = divmod(linear, max(extent, 1))
            digits.append(digit)
        return digits[::-1]
