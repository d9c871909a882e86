"""What segmentation produces: kernels (groups of exprs), each with a scheduler kind, and the
reasons for every boundary between them."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hfuse.ir import Expr


class SchedulerKind(enum.Enum):
    ALIAS = "alias"  # no kernel: outputs are strided views of inputs
    POINTWISE = "pointwise"
    TRANSPOSE = "transpose"
    REDUCTION = "reduction"
    NORMALIZATION = "normalization"
    TORCH = "torch"  # run by torch (matmul, linear, sorts, scans): no generated kernel
    HORIZONTAL = "horizontal"  # several independent sub-kernels in one launch

    @property
    def launches_kernel(self) -> bool:
        return self not in (SchedulerKind.ALIAS, SchedulerKind.TORCH)


@dataclass(frozen=True, slots=True)
class Group:
    """One segment. A HORIZONTAL group holds its sub-groups in `branches` (and their exprs in order)."""

    id: int
    kind: SchedulerKind
    exprs: tuple[Expr, ...]
    inputs: tuple[str, ...]  # values read from global memory (fusion inputs or other groups' outputs)
    outputs: tuple[str, ...]  # values written to global memory
    branches: tuple[Group, ...] = ()
    note: str = ""  # why this kind was chosen, in plain words

    @property
    def name(self) -> str:
        return f"hfuse_{self.kind.value}_g{self.id}"


@dataclass(frozen=True, slots=True)
class Boundary:
    """A tensor written by one group and read by another, and why the two were not merged."""

    producer: int
    consumer: int
    tensor: str
    reason: str


@dataclass(frozen=True, slots=True)
class RefusedMerge:
    first: int
    second: int
    reason: str


@dataclass(frozen=True, slots=True)
class Segmentation:
    strategy: str
    groups: tuple[Group, ...]  # in a valid execution order
    boundaries: tuple[Boundary, ...]
    refused: tuple[RefusedMerge, ...] = ()

    @property
    def kernel_count(self) -> int:
        return sum(1 for g in self.groups if g.kind.launches_kernel)
