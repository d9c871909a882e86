"""What code generation produces for one group: a Triton module as source text.

The module defines the `@triton.jit` kernel and a plain Python `launch(...)` that takes the
group's input values then its output buffers, positionally, in the order of `args`
(tensors as torch tensors, symbolic scalars as Python numbers), computes the grid and launches.
A split reduction's module defines two kernels and launches both (`launches` is 2): it counts as
one kernel group but two CUDA launches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class KernelSource:
    name: str
    group_id: int
    scheduler: str
    source: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    grid: tuple[int, ...]  # of the first launch
    num_warps: int  # of the first launch
    launches: int = 1  # CUDA kernels one run launches
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def args(self) -> tuple[str, ...]:
        return self.inputs + self.outputs
