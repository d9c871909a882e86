"""Launch heuristics for generated kernels, in one place."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Options:
    """Launch heuristics. The defaults suit the H200; tests shrink them to reach every code path."""

    pointwise_block: int = 1024  # elements per program for 4-byte outputs (twice that for 2-byte)
    transpose_tile: int = 64  # edge of a transpose tile
    persistent_max_cols: int = 16384  # longest reduced row kept whole in registers
    loop_cols: int = 2048  # column block of looped reductions
    row_tile: int = 4096  # elements of a reduction tile when several rows share a program
    store_tile_rows: int = 8  # rows per tile when outputs are contiguous along the rows (0: no such rule)
