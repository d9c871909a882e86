"""Column sums joined to the row kernel that reads the same values (a normalization backward).

A LayerNorm or RMSNorm backward reduces each row of its [rows, columns] values for grad-input and sums
each column over the rows for grad-weight and grad-bias. Segmented alone, the column sums are a kernel
of their own that reads the inputs a second time (once the recompute step gave it its own copies of the
row terms, it depends on the row kernel no more). Joined, the row kernel's programs also add each
column's terms over their rows, and one more launch adds those partials (`codegen.column_partials`).

A join takes a row group whose kernel keeps each row on chip (`keeps_rows`, from code generation) and a
column group over the same shape that reduces the other dims, where the column group depends on no group
that depends on the row group (it may read the row group's results: the row kernel computes them), every
reduction of the column group is a sum and all its outputs hold one value per column. The joined group
keeps the row group's kind, space and row outputs; its two branches are the groups joined.
"""

from __future__ import annotations

from collections.abc import Callable

from hfuse.ir import Fusion, Op
from hfuse.ops import op_def
from hfuse.segment.finish import finish
from hfuse.segment.graph import GroupGraph
from hfuse.segment.model import Group, SchedulerKind, Segmentation

_ROW_KINDS = (SchedulerKind.REDUCTION, SchedulerKind.NORMALIZATION)
MAX_COLUMN_SUMS = 4  # each keeps a row of sums in registers through the row kernel


def join_column_sums(
    fusion: Fusion, segmentation: Segmentation, keeps_rows: Callable[[Group], bool]
) -> Segmentation:
    """The segmentation with each row group joined to a column group it can sum beside it."""
    groups = list(segmentation.groups)
    graph = GroupGraph(groups, fusion)
    joined = False
    for rows in list(groups):
        if rows not in groups or not _is_row_group(rows) or not keeps_rows(rows):
            continue
        columns = next((g for g in groups if _sums_its_columns(g, rows, graph)), None)
        if columns is None:
            continue
        groups[groups.index(rows)] = _joined(fusion, rows, columns, max(g.id for g in groups) + 1)
        groups.remove(columns)
        graph = GroupGraph(groups, fusion)
        joined = True
    if not joined:
        return segmentation
    return finish(groups, fusion, segmentation.strategy, segmentation.aliases, segmentation.recomputed)


def _is_row_group(group: Group) -> bool:
    return group.kind in _ROW_KINDS and not group.branches and group.space is not None


def _sums_its_columns(group: Group, rows: Group, graph: GroupGraph) -> bool:
    """Whether `group` sums the columns of `rows`' space into one value per column, after no other group
    that depends on `rows`."""
    if group is rows or not _is_row_group(group) or group.kind is not SchedulerKind.REDUCTION:
        return False
    space, row_space = group.space, rows.space
    assert space is not None and row_space is not None
    every_dim = set(range(len(row_space.shape)))
    if space.shape != row_space.shape or set(space.reduced_dims) != every_dim - set(row_space.reduced_dims):
        return False
    sums = [e for e in group.exprs if op_def(e.op).reduces]
    if not sums or len(sums) > MAX_COLUMN_SUMS or any(e.op is not Op.SUM for e in sums):
        return False
    if group.full_outputs:
        return False
    # it may read what the row group writes (the row kernel has it in registers), but nothing between
    return not graph.reaches(group.id, rows.id) and not graph.has_detour(rows.id, group.id)


def _joined(fusion: Fusion, rows: Group, columns: Group, next_id: int) -> Group:
    exprs = {id(e) for e in (*rows.exprs, *columns.exprs)}
    note = (
        f"{rows.note}; with the column sums of the same values ({', '.join(columns.outputs)}), added by "
        "each program over its rows and then over the programs, so the inputs are read once"
    )
    return Group(
        next_id,
        rows.kind,
        tuple(e for e in fusion.exprs if id(e) in exprs),
        tuple(n for n in dict.fromkeys((*rows.inputs, *columns.inputs)) if n not in rows.outputs),
        tuple(dict.fromkeys((*rows.outputs, *columns.outputs))),
        branches=(rows, columns),
        note=note,
        space=rows.space,
        row_outputs=rows.row_outputs,
    )
