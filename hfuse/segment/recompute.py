"""Recomputation instead of materialization: after the merges, a tensor that one kernel group writes and
another reads back is recomputed by the reader when it is a short chain of cheap elementwise ops of values
the reader can read itself, and reading those moves fewer bytes.

A backward norm is the case it exists for: the grad-input kernel reduces rows, the grad-weight kernel
reduces columns, and both start from `cast(grad) * (cast(x) - mean) * rstd`. Merged once, the row kernel
writes that float32 product for the column kernel (a write and a read of 4 bytes an element); recomputed,
the column kernel reads the bfloat16 grad and x and the per-row mean and rstd (2 + 2 bytes an element)
and the row kernel writes nothing for it.

The rule, on the IR:
- the chain: the exprs of the producer group that compute the tensor, walked back from it; each is
  elementwise (unary, binary, ternary, cast) and cheap, or a broadcast, with one output; at most
  `MAX_CHAIN` of them. No reduction, random op, long math or `segment_set` is ever copied.
- its leaves: fusion inputs, scalars, and tensors of fewer elements than the recomputed one (the per-row
  results of a reduction: the group that computes one writes it, which costs a few bytes a row), made by
  a kernel group the reader does not feed.
- the bytes: what the reader stops reading (the tensor) and the producer stops writing (when nothing
  else needs it) must outweigh the leaves the reader starts reading and their producers start writing.

The reader computes copies of the chain's values, named after them with `_r` (`T26_r`): the same ops in
the same order, so the values are bit-identical. Exprs that nothing reads any more go, and every group
that changed is worked out again; a group that no kernel could compute any more keeps its old form.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from hfuse.ir import Expr, Family, Fusion, Op, Value
from hfuse.ops import Cost, op_def
from hfuse.passes import eliminate_dead_code
from hfuse.segment.analysis import Refusal
from hfuse.segment.graph import KERNEL_KINDS, FusionIndex, GroupGraph, in_torch, index_of, try_group
from hfuse.segment.model import Group, Recomputed

MAX_CHAIN = 10  # exprs one recomputed tensor may take
_BROADCASTS = (Op.BROADCAST_IN_DIM, Op.BROADCAST)
_ELEMENTWISE = (Family.UNARY, Family.BINARY, Family.TERNARY, Family.CAST)


@dataclass(frozen=True, slots=True)
class _Chain:
    """The exprs (positions, in fusion order) that compute `tensor` from `leaves`."""

    tensor: str
    positions: tuple[int, ...]
    leaves: tuple[str, ...]


def recompute(fusion: Fusion, groups: Sequence[Group]) -> tuple[Fusion, list[Group], list[Recomputed]]:
    """The fusion with the copies, its groups, and what each reader recomputes (unchanged when nothing
    is worth recomputing)."""
    index, graph = index_of(fusion), GroupGraph(groups, fusion)
    plans = {c.id: chains for c in groups if (chains := _worth_recomputing(c, index, graph))}
    while plans:
        rebuilt = _rebuild(fusion, groups, plans, graph)
        if isinstance(rebuilt, int):  # that reader could not take its copies: leave it as it was
            del plans[rebuilt]
            continue
        return rebuilt
    return fusion, list(groups), []


def _worth_recomputing(consumer: Group, index: FusionIndex, graph: GroupGraph) -> list[_Chain]:
    """The chains `consumer` recomputes rather than reading their tensors, chosen one input at a time."""
    if consumer.kind not in KERNEL_KINDS:
        return []
    values, groups = index.values, graph.groups
    reads, writes = set(consumer.inputs), {n for g in groups.values() for n in g.outputs}
    chains = []
    for name in consumer.inputs:
        producer = graph.owner(name)
        if producer is None or values[name].is_scalar or groups[producer].kind not in KERNEL_KINDS:
            continue
        chain = _chain(name, producer, index, graph)
        if chain is None or not _acyclic(chain.leaves, consumer.id, graph):
            continue
        saved = values[name].nbytes
        readers = {graph.owner(r.outputs[0]) for r in index.readers.get(name, ())}
        if name not in index.fusion_outputs and readers <= {producer, consumer.id}:
            saved += values[name].nbytes  # the producer's write goes too
        new_leaves = [n for n in chain.leaves if values[n].is_tensor and n not in reads]
        cost = sum(values[n].nbytes * (1 if n in writes or graph.owner(n) is None else 2) for n in new_leaves)
        if cost < saved:
            chains.append(chain)
            reads |= set(new_leaves)
            writes |= set(new_leaves)
    return chains


def _chain(name: str, producer: int, index: FusionIndex, graph: GroupGraph) -> _Chain | None:
    """The cheap exprs of group `producer` that compute `name` from smaller or outside values, or None."""
    values, numel = index.values, index.values[name].numel
    positions: set[int] = set()
    leaves: dict[str, None] = {}
    stack = [name]
    while stack:
        current = stack.pop()
        value = values[current]
        position = index.producer.get(current)
        if position is None or value.is_scalar or value.numel < numel:
            leaves[current] = None
            continue
        if position in positions:
            continue
        expr = index.exprs[position]
        if graph.owner(current) != producer or not _cheap(expr, index) or len(positions) == MAX_CHAIN:
            return None
        positions.add(position)
        stack.extend(expr.inputs)
    inputs = index.fusion.inputs
    order = sorted(leaves, key=lambda n: (index.producer.get(n, -1), inputs.index(n) if n in inputs else 0))
    return _Chain(name, tuple(sorted(positions)), tuple(order))


def _cheap(expr: Expr, index: FusionIndex) -> bool:
    """Whether copying `expr` costs a few instructions an element and changes no stream of numbers."""
    if len(expr.outputs) != 1 or expr.op is Op.SEGMENT_SET or in_torch(expr, index.values):
        return False
    definition = op_def(expr.op)
    if expr.op in _BROADCASTS:
        return True
    return expr.op.family in _ELEMENTWISE and definition.cost is Cost.CHEAP


def _acyclic(leaves: Sequence[str], consumer: int, graph: GroupGraph) -> bool:
    """Whether `consumer` can read the leaves: none of them is computed by a group it reaches (or a launch
    of several kernels, whose outputs are not worked out again here)."""
    for leaf in leaves:
        owner = graph.owner(leaf)
        if owner is None:
            continue
        if graph.groups[owner].kind not in KERNEL_KINDS or graph.reaches(consumer, owner):
            return False
    return True


def _rebuild(
    fusion: Fusion, groups: Sequence[Group], plans: dict[int, list[_Chain]], graph: GroupGraph
) -> tuple[Fusion, list[Group], list[Recomputed]] | int:
    """The fusion and groups with each planned reader computing its copies, or the id of a reader whose
    copies leave a group that no kernel can compute."""
    index = index_of(fusion)
    taken = set(index.values)
    copies: dict[int, list[Expr]] = {}  # the first expr of a reader that reads a copy -> the copies
    rewired: dict[int, Expr] = {}  # position -> the expr reading copies instead
    new_values: dict[str, Value] = {}
    records = []
    for gid, chains in plans.items():
        renamed = {}
        positions = sorted({p for chain in chains for p in chain.positions})
        for name in (name for p in positions for name in index.exprs[p].outputs):
            renamed[name] = _fresh(name, taken)
            new_values[renamed[name]] = dataclasses.replace(index.values[name], name=renamed[name])
        tensors = {chain.tensor for chain in chains}
        own = sorted(index.position[e] for e in graph.groups[gid].exprs)
        for p in own:
            expr = index.exprs[p]
            if not tensors.isdisjoint(expr.inputs):
                inputs = tuple(renamed[n] if n in tensors else n for n in expr.inputs)
                rewired[p] = dataclasses.replace(expr, inputs=inputs)
        first = min(p for p in own if p in rewired)
        copies[first] = [_renamed(index.exprs[p], renamed) for p in positions]
        records += [Recomputed(c.tensor, renamed[c.tensor], gid, c.leaves) for c in chains]
    values = []
    for value in fusion.values:
        p = index.producer.get(value.name)
        if p in copies and index.exprs[p].outputs[0] == value.name:
            values += [new_values[name] for expr in copies[p] for name in expr.outputs]
        values.append(value)
    exprs = [e for p, expr in enumerate(fusion.exprs) for e in (*copies.get(p, ()), rewired.get(p, expr))]
    new = eliminate_dead_code(Fusion(tuple(values), fusion.inputs, tuple(exprs), fusion.outputs))
    new_index = index_of(new)
    rebuilt = []
    for group, readers in _touched(groups, plans, graph):
        if not readers:
            rebuilt.append(group)
            continue
        positions = [index.position[e] for e in group.exprs]
        exprs = [rewired.get(p, index.exprs[p]) for p in positions]
        exprs += [e for p in positions for e in copies.get(p, ())]
        live = [new_index.position[e] for e in exprs if e in new_index.position]
        if not live:
            continue  # all it computed is recomputed where it is read
        built = try_group(group.id, live, new_index)
        if isinstance(built, Refusal):
            return readers[0]
        rebuilt.append(built[0])
    return new, rebuilt, records


def _touched(
    groups: Sequence[Group], plans: dict[int, list[_Chain]], graph: GroupGraph
) -> list[tuple[Group, list[int]]]:
    """Each group with the readers whose copies change it: the readers themselves, the producers of the
    recomputed tensors and the groups that now write a leaf."""
    readers: dict[int, list[int]] = {g.id: [] for g in groups}
    for gid, chains in plans.items():
        readers[gid].append(gid)
        for chain in chains:
            for name in (chain.tensor, *chain.leaves):
                owner = graph.owner(name)
                if owner is not None and gid not in readers[owner]:
                    readers[owner].append(gid)
    return [(g, readers[g.id]) for g in groups]


def _renamed(expr: Expr, renamed: dict[str, str]) -> Expr:
    return dataclasses.replace(
        expr,
        inputs=tuple(renamed.get(n, n) for n in expr.inputs),
        outputs=tuple(renamed[n] for n in expr.outputs),
    )


def _fresh(name: str, taken: set[str]) -> str:
    """`name` with `_r` (then `_r2`, `_r3`, ...) for the copy of another group."""
    candidate, n = f"{name}_r", 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_r{n}"
    taken.add(candidate)
    return candidate
