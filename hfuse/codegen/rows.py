"""The rows and columns of a reduction group: the reduced space and what each output holds (a value per
element of that space, or one per row), both from the segmenter's plan (`Group.space`,
`Group.row_outputs`), and the tile of rows a program owns."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from hfuse.codegen.code import Body
from hfuse.codegen.indexing import delinearize, term
from hfuse.codegen.kernel import needs_wide_index
from hfuse.codegen.lower import Index, Lowering, describe
from hfuse.codegen.pointwise import planned_space
from hfuse.codegen.probe import load_axes
from hfuse.errors import UnsupportedError
from hfuse.ir import Fusion, Value
from hfuse.ops import op_def
from hfuse.segment.model import Group, IterSpace


@dataclass(frozen=True, slots=True)
class RowSpace:
    """`shape` reduced over `dims`: rows are the kept dims, columns the reduced ones."""

    shape: tuple[int, ...]
    dims: tuple[int, ...]
    full_outputs: tuple[str, ...]  # of `shape`: written at every (row, column)
    row_outputs: tuple[str, ...]  # one value per row (the kept dims, or `shape` with the reduced dims 1)
    outer: bool  # the inputs are contiguous along the kept dims
    wide: bool  # int64 index math

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(d for d in range(len(self.shape)) if d not in self.dims)

    @property
    def row_shape(self) -> tuple[int, ...]:
        return tuple(self.shape[d] for d in self.kept)

    @property
    def rows(self) -> int:
        return math.prod(self.row_shape)

    @property
    def cols(self) -> int:
        return math.prod(self.shape[d] for d in self.dims)


@dataclass(frozen=True, slots=True)
class RowTile:
    """The rows one program owns: `row` (a [ROWS, 1] linear row), its mask and each kept dim's position."""

    row: str
    mask: frozenset[str]
    positions: dict[int, str]


def row_space(group: Group, fusion: Fusion) -> RowSpace:
    """The group's planned space as rows and columns; checks that its reductions and outputs fit it."""
    space = planned_space(group)
    shape, dims = space.shape, space.reduced_dims
    reductions = [e for e in group.exprs if op_def(e.op).reduces]
    if not reductions:
        raise UnsupportedError(f"group {group.id} is a {group.kind.value} group without a reduction")
    values = fusion.value_map
    for expr in reductions:
        if IterSpace.reduced_by(expr, values) != space:
            raise UnsupportedError(
                f"group {group.id} reduces {list(shape)} over dims {list(dims)} and also "
                f"`{describe(expr)}` over another space; one kernel reduces one space, so split the group"
            )
    full_outputs, row_outputs = group.full_outputs, tuple(dict.fromkeys(group.row_outputs))
    for name in full_outputs + row_outputs:
        value = values[name]
        fits = value.shape == shape if name in full_outputs else space.holds_row(value.shape)
        if not value.is_tensor or not fits:
            raise UnsupportedError(
                f"group {group.id} reduces {list(shape)} over dims {list(dims)}, "
                f"but writes {value.describe()}, which is neither that shape nor one value per row; "
                "write it from another kernel"
            )
    args = [values[n] for n in (*group.inputs, *group.outputs)]
    wide = needs_wide_index(args, math.prod(shape))
    outer = _is_outer(group, fusion, shape, dims)
    return RowSpace(shape, dims, full_outputs, row_outputs, outer, wide)


def streamed_inputs(group: Group, fusion: Fusion) -> tuple[str, ...]:
    """The group's inputs read at every (row, column) of its space: each a tile load of every column
    block (a row's statistics, a weight or an expanded tensor is read far less)."""
    size = math.prod(planned_space(group).shape)
    values = [fusion.value(name) for name in group.inputs]
    read = [math.prod(n for n, stride in zip(v.shape, v.strides, strict=True) if stride) for v in values]
    return tuple(v.name for v, elements in zip(values, read, strict=True) if v.is_tensor and elements >= size)


def rows_aligned(fusion: Fusion, names: Sequence[str], boundary: int = 16) -> bool:
    """Whether every row of each named tensor starts a multiple of `boundary` bytes after its first element
    (every stride but a unit one spans a multiple of it): with an aligned first element and 16 bytes,
    Triton may then load each row's elements as vectors; off 4 bytes, it loads 2-byte elements one by
    one."""
    values = [fusion.value(name) for name in names]
    return all(
        stride * v.dtype.itemsize % boundary == 0
        for v in values
        for n, stride in zip(v.shape, v.strides, strict=True)
        if n != 1 and stride != 1
    )


def tile_rows(body: Body, first: str | None, tile: int, space: RowSpace) -> RowTile:
    """Rows `first * tile` to `first * tile + tile - 1` (from 0 when `first` is None), masked past the
    last."""
    arange = f"tl.arange(0, {tile})[:, None]"
    if first is None:
        text = arange
    else:
        text = f"{first if tile == 1 else f'{term(first)} * {tile}'} + {arange}"
    # unread where a program's row is `prog` and no value per row is stored
    row = body.define("rows", text, frozenset({"row"}), optional=True)
    mask = frozenset()
    if space.rows % tile:
        mask = frozenset({body.define("rmask", f"rows < {space.rows}", frozenset({"row"}))})
    positions = {
        d: body.assign(text, f"r{d}")
        for d, text in zip(space.kept, delinearize(row, list(space.row_shape)), strict=True)
    }
    return RowTile(row, mask, positions)


def row_index(space: RowSpace, tile: RowTile, value: Value) -> Index:
    """The tile's rows as an index of `value`, a value per row (of the kept dims, or keeping the reduced
    dims as 1)."""
    if value.shape == space.row_shape:
        return Index(tuple(tile.positions[d] for d in space.kept), tile.mask)
    return Index(tuple(tile.positions.get(d, "0") for d in range(len(space.shape))), tile.mask)


def kept_positions(kept: Sequence[int], index: Index, rank: int) -> list[str]:
    """The positions of the `kept` dims in `index`: an index of a reduction's input (of `rank` dims) or
    of its rows."""
    return [index.dims[d] for d in kept] if len(index.dims) == rank else list(index.dims)


def store_row_outputs(lowering: Lowering, space: RowSpace, tile: RowTile) -> None:
    for name in space.row_outputs:
        lowering.store(name, row_index(space, tile, lowering.values[name]), spread=tile.row)


def _is_outer(group: Group, fusion: Fusion, shape: tuple[int, ...], dims: tuple[int, ...]) -> bool:
    first = next(e for e in group.exprs if op_def(e.op).reduces)
    weight: dict[int, int] = {}
    for value, axis in load_axes(fusion, group.exprs, group.inputs, shape, [first.inputs[0]]):
        if axis is not None:
            weight[axis] = weight.get(axis, 0) + value.nbytes
    return bool(weight) and max(weight, key=lambda axis: weight[axis]) not in dims
