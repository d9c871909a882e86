"""Strides and memory order, and nvFuser's description of a layout (contiguity + stride_order).

`stride_order[i]` is the rank of logical dim i in memory: the largest value is the outermost
dim, 0 the innermost. Contiguity is listed in that memory order, outermost first, with None for
broadcast dims (extent 1 or stride 0).
"""

from __future__ import annotations

from collections.abc import Sequence


def row_major(rank: int) -> tuple[int, ...]:
    """The stride order of a row-major (contiguous) tensor: the last dim innermost."""
    return tuple(range(rank - 1, -1, -1))


def strides_for(shape: Sequence[int], stride_order: Sequence[int] = ()) -> tuple[int, ...]:
    """Dense strides for `shape` laid out in `stride_order` (row-major when empty)."""
    order = tuple(stride_order) or row_major(len(shape))
    strides = [0] * len(shape)
    running = 1
    for dim in sorted(range(len(shape)), key=lambda d: order[d]):
        strides[dim] = running
        running *= max(shape[dim], 1)
    return tuple(strides)


def memory_order(shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    """Dims from outermost to innermost: by stride, largest first; ties keep logical order."""
    return sorted(range(len(shape)), key=lambda d: (-strides[d], d))


def innermost_dim(shape: Sequence[int], strides: Sequence[int]) -> int | None:
    """The dim that walks memory with the smallest step: the smallest non-zero stride among dims of
    extent > 1 (the last such dim on ties); None when no dim moves through memory."""
    candidates = [d for d in range(len(shape)) if shape[d] > 1 and strides[d] != 0]
    if not candidates:
        return None
    return min(candidates, key=lambda d: (strides[d], -d))


def has_stride_order(shape: Sequence[int], strides: Sequence[int], order: Sequence[int]) -> bool:
    """Whether the layout orders dims as `order` does (order[i] is dim i's rank in memory, 0 innermost).
    Dims of extent 1 have no place in memory and are ignored."""
    dims = [d for d in sorted(range(len(shape)), key=lambda d: -order[d]) if shape[d] != 1]
    return all(strides[outer] >= strides[inner] for outer, inner in zip(dims, dims[1:], strict=False))


def layout_of(shape: Sequence[int], strides: Sequence[int]) -> tuple[list[bool | None], list[int]]:
    """(contiguity in memory order, stride_order) of a tensor with these extents and strides."""
    rank = len(shape)
    outer_to_inner = memory_order(shape, strides)
    stride_order = [0] * rank
    for position, dim in enumerate(outer_to_inner):
        stride_order[dim] = rank - 1 - position
    contiguity: list[bool | None] = []
    expected = 1
    for dim in reversed(outer_to_inner):
        if shape[dim] == 1 or strides[dim] == 0:
            contiguity.append(None)
            continue
        contiguity.append(strides[dim] == expected)
        expected = strides[dim] * shape[dim]
    return list(reversed(contiguity)), stride_order
