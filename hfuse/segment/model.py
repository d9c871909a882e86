"""What segmentation produces: kernels (groups of exprs), each with a scheduler kind, and the
reasons for every boundary between them."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from hfuse.ir import Expr, Value
from hfuse.passes.alias import AliasInfo


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
class IterSpace:
    """What one program instance of a kernel iterates over.

    Pointwise groups: `shape` is the shape of every tensor the group writes, `reduced_dims` is empty.
    Reduction and normalization groups: `shape` is the shape of the reduced tensors and
    `reduced_dims` the dims every reduction of the group reduces; the kernel computes one
    "row" (one index of `outer_shape`) at a time and writes values of shape `shape` or of the
    row shape (`outer_shape`, or `shape` with the reduced dims kept as 1)."""

    shape: tuple[int, ...]
    reduced_dims: tuple[int, ...] = ()

    @classmethod
    def reduced_by(cls, expr: Expr, values: Mapping[str, Value]) -> IterSpace:
        """The space a reduction expr iterates over: its operand's shape and the dims it reduces."""
        return cls(values[expr.inputs[0]].shape, tuple(expr.attr("dims")))

    @property
    def outer_shape(self) -> tuple[int, ...]:
        return tuple(e for i, e in enumerate(self.shape) if i not in self.reduced_dims)

    @property
    def reduced_shape(self) -> tuple[int, ...]:
        return tuple(self.shape[i] for i in self.reduced_dims)

    @property
    def keepdim_shape(self) -> tuple[int, ...]:
        return tuple(1 if i in self.reduced_dims else e for i, e in enumerate(self.shape))

    def holds_row(self, shape: tuple[int, ...]) -> bool:
        """Whether a tensor of this shape has one element per row."""
        return bool(self.reduced_dims) and shape in (self.outer_shape, self.keepdim_shape)

    def __str__(self) -> str:
        if not self.reduced_dims:
            return f"pointwise over {list(self.shape)}"
        dims = ", ".join(str(d) for d in self.reduced_dims)
        return f"rows {list(self.outer_shape)} reducing dim {dims} of {list(self.shape)}"


@dataclass(frozen=True, slots=True)
class Group:
    """One segment. A HORIZONTAL group holds its sub-groups in `branches` (and their exprs in order).

    `space` and `row_outputs` are what code generation builds a kernel group from: the kernel iterates
    over `space`; each of `row_outputs` holds one value per row of a reduction space (its kept dims, or
    its shape with the reduced dims 1) and every other output one value per element of `space.shape`.
    """

    id: int
    kind: SchedulerKind
    exprs: tuple[Expr, ...]
    inputs: tuple[str, ...]  # values read from global memory (fusion inputs or other groups' outputs)
    outputs: tuple[str, ...]  # values written to global memory
    branches: tuple[Group, ...] = ()
    note: str = ""  # why this kind was chosen, in plain words
    space: IterSpace | None = None  # None for alias, torch and horizontal groups (see the branches)
    row_outputs: tuple[str, ...] = ()

    @property
    def full_outputs(self) -> tuple[str, ...]:
        """The outputs written at every index of `space.shape`."""
        return tuple(name for name in dict.fromkeys(self.outputs) if name not in self.row_outputs)

    @property
    def sums_columns(self) -> bool:
        """A row group joined with the column sums of its values (`segment.column_sums`): its branches are
        the two groups joined, computed by one row kernel and one launch adding its partials."""
        return bool(self.branches) and self.kind is not SchedulerKind.HORIZONTAL

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
    """Two groups that stayed apart, and the constraint that kept them apart."""

    first: int
    second: int
    reason: str


@dataclass(frozen=True, slots=True)
class Recomputed:
    """A tensor that a group computes again (as `copy`, from `leaves`) rather than reading it from the
    group that computed it first (see `segment.recompute`)."""

    tensor: str
    copy: str
    consumer: int
    leaves: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Segmentation:
    strategy: str
    groups: tuple[Group, ...]  # in a valid execution order
    boundaries: tuple[Boundary, ...]
    refused: tuple[RefusedMerge, ...] = ()
    aliases: tuple[AliasInfo, ...] = ()  # outputs served as views of inputs (the ALIAS group's outputs)
    recomputed: tuple[Recomputed, ...] = ()  # tensors a kernel recomputes instead of reading them back

    @property
    def kernel_count(self) -> int:
        """Groups that launch a kernel. Code generation may launch a group in two kernels (a split
        reduction): a compiled fusion's CUDA launches are `Compiled.kernel_count`."""
        return sum(1 for g in self.groups if g.kind.launches_kernel)
