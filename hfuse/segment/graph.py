"""Groups as a graph: what each group reads and writes, and which groups feed which."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence

from hfuse.ir import Expr, Fusion, Value
from hfuse.layout import innermost_dim, strides_for
from hfuse.ops import op_def
from hfuse.segment.analysis import KernelFit, KernelState, Refusal, analyze, kernel_state
from hfuse.segment.dims import dim_links
from hfuse.segment.model import Group, SchedulerKind

KERNEL_KINDS = frozenset({
    SchedulerKind.POINTWISE, SchedulerKind.TRANSPOSE, SchedulerKind.REDUCTION, SchedulerKind.NORMALIZATION,
})  # fmt: skip


class FusionIndex:
    """One fusion's tables that segmentation asks about many times, keyed by expr position and value name
    (hashing an Expr is slow), and the answers worked out so far."""

    def __init__(self, fusion: Fusion) -> None:
        self.fusion = fusion
        self.exprs = fusion.exprs
        self.values = fusion.value_map
        self.position = {e: i for i, e in enumerate(fusion.exprs)}
        self.readers: dict[str, list[Expr]] = {}
        for expr in fusion.exprs:
            for name in dict.fromkeys(expr.inputs):
                self.readers.setdefault(name, []).append(expr)
        self.reader_positions = {name: [self.position[r] for r in rs] for name, rs in self.readers.items()}
        # scalar value -> the scalar-only expr that every group reading it recomputes
        self.copied: dict[str, Expr] = _copied_scalars(fusion, self.readers)
        self.copied_positions = frozenset(self.position[e] for e in self.copied.values())
        self.producer = {name: p for p, e in enumerate(fusion.exprs) for name in e.outputs}
        self.output_key = {
            name: (p, k) for p, e in enumerate(fusion.exprs) for k, name in enumerate(e.outputs)
        }
        self.fusion_outputs = frozenset(fusion.output_names)
        self.stride_orders = {o.name: o.stride_order for o in fusion.outputs if o.stride_order is not None}
        self.fits: dict[tuple[int, ...], KernelFit | Refusal] = {}  # by expr positions
        self._scalar_chains: dict[int, frozenset[int]] = {}
        self._stored_inner_dim: dict[str, int | None] = {}
        self._operand_dims: dict[tuple[str, int], list[tuple[str, int]]] = {}
        self._read_transposed: dict[tuple[str, int], bool] = {}

    def fit(self, exprs: Sequence[Expr]) -> KernelFit | Refusal:
        """The fit of `exprs` analysed in the order given (which decides which reduction and which output
        a note or a refusal names first)."""
        positions = tuple(self.position[e] for e in exprs)
        if positions not in self.fits:
            self.fits[positions] = analyze(positions, self, self.outputs_at(positions))
        return self.fits[positions]

    def outputs_at(self, positions: Sequence[int]) -> tuple[str, ...]:
        """The values the exprs at `positions` compute that a fusion output or an expr outside them needs,
        in the order given. Copied scalars are recomputed by every group that reads them: never written."""
        inside = set(positions)
        return tuple(
            name
            for p in positions
            for name in self.exprs[p].outputs
            if name in self.fusion_outputs
            or (name not in self.copied and not inside.issuperset(self.reader_positions.get(name, ())))
        )

    def scalar_chain(self, position: int) -> frozenset[int]:
        """The copied scalar exprs the expr at `position` reads, directly or through each other."""
        if position not in self._scalar_chains:
            chain = set()
            stack = list(self.exprs[position].inputs)
            while stack:
                producer = self.copied.get(stack.pop())
                if producer is not None and self.position[producer] not in chain:
                    chain.add(self.position[producer])
                    stack.extend(producer.inputs)
            self._scalar_chains[position] = frozenset(chain)
        return self._scalar_chains[position]

    def stored_inner_dim(self, name: str) -> int | None:
        """The dim along which a kernel's stores of `name` are contiguous (the innermost of its stride order
        for a fusion output that asks for one), or None for values of rank < 2 or without such a dim."""
        if name not in self._stored_inner_dim:
            value = self.values[name]
            if value.rank < 2:
                inner = None
            else:
                order = self.stride_orders.get(name)
                strides = value.strides if order is None else strides_for(value.shape, order)
                inner = innermost_dim(value.shape, strides)
            self._stored_inner_dim[name] = inner
        return self._stored_inner_dim[name]

    def operand_dims(self, name: str, dim: int) -> list[tuple[str, int]]:
        """The (operand, dim) pairs that dim `dim` of the computed value `name` runs along."""
        key = (name, dim)
        if key not in self._operand_dims:
            links = dim_links(self.exprs[self.producer[name]], self.values)
            self._operand_dims[key] = [
                (link.operand, link.in_dim) for link in links if link.output == name and link.out_dim == dim
            ]
        return self._operand_dims[key]

    def read_transposed(self, name: str, dim: int) -> bool:
        """Whether reading `name` along `dim` is not reading it along its innermost dim."""
        key = (name, dim)
        if key not in self._read_transposed:
            value = self.values[name]
            self._read_transposed[key] = (
                value.rank >= 2 and value.shape[dim] > 1 and innermost_dim(value.shape, value.strides) != dim
            )
        return self._read_transposed[key]


_LAST_INDEX: list[FusionIndex] = []


def index_of(fusion: Fusion) -> FusionIndex:
    """The index of `fusion`, kept for the fusion last asked about (segmenting asks many times)."""
    last = _LAST_INDEX[0] if _LAST_INDEX else None
    if last is not None and last.fusion is fusion:
        return last
    index = FusionIndex(fusion)
    _LAST_INDEX[:] = [index]
    return index


def _copied_scalars(fusion: Fusion, readers: dict[str, list[Expr]]) -> dict[str, Expr]:
    """Scalar arithmetic (`reciprocal(S1)`, `S2 * S3`) is recomputed by each group that reads it, so
    that no kernel has to write a scalar. Scalars that are fusion outputs or feed a torch op keep a
    group of their own."""
    values = fusion.value_map
    outputs = set(fusion.output_names)
    copied = {}
    for expr in fusion.exprs:
        names = (*expr.inputs, *expr.outputs)
        if (
            all(values[n].is_scalar for n in names)
            and not in_torch(expr, values)
            and not any(
                n in outputs or any(in_torch(r, values) for r in readers.get(n, ())) for n in expr.outputs
            )
        ):
            copied.update(dict.fromkeys(expr.outputs, expr))
    return copied


def make_group(gid: int, exprs: Iterable[Expr], fusion: Fusion) -> Group:
    """A group of `exprs` with its inputs, outputs, kind and iteration space worked out."""
    index = index_of(fusion)
    return build_group(gid, [index.position[e] for e in exprs], index)[0]


def build_group(gid: int, positions: Iterable[int], index: FusionIndex) -> tuple[Group, KernelState | None]:
    """The group of the exprs at `positions`, and for a kernel group the analysis state its fit comes
    from. A kernel group also gets the scalar arithmetic it reads (see `_copied_scalars`)."""
    built = try_group(gid, positions, index)
    assert not isinstance(built, Refusal), f"group {gid} was formed although {built.reason}"
    return built


def in_torch(expr: Expr, values: Mapping[str, Value]) -> bool:
    """Whether torch computes `expr` in a segment of its own: an op with no kernel (a matrix product), or
    any op on complex values, since kernels hold real numbers only."""
    return op_def(expr.op).runs_in_torch or any(
        values[n].dtype.is_complex for n in (*expr.inputs, *expr.outputs)
    )


def _complex_reason(expr: Expr, values: Mapping[str, Value]) -> str:
    complex_types = sorted(
        {values[n].dtype.name for n in (*expr.inputs, *expr.outputs) if values[n].dtype.is_complex}
    )
    if not complex_types:
        return ""
    return f": it computes with {', '.join(complex_types)} values, and kernels hold real numbers only"


def try_group(
    gid: int, positions: Iterable[int], index: FusionIndex
) -> tuple[Group, KernelState | None] | Refusal:
    """As `build_group`, or why no kernel can compute the exprs at `positions`."""
    chosen = set(positions)
    if len(chosen) != 1 or not in_torch(index.exprs[min(chosen)], index.values):
        for p in list(chosen):
            chosen |= index.scalar_chain(p)
    ordered = tuple(sorted(chosen))
    exprs = tuple(map(index.exprs.__getitem__, ordered))
    produced = {name for e in exprs for name in e.outputs}
    values = index.values
    inputs = tuple(
        dict.fromkeys(
            name
            for e in exprs
            for name in e.inputs
            if name not in produced and not (values[name].is_scalar and values[name].const is not None)
        )
    )
    outputs = index.outputs_at(ordered)
    if len(exprs) == 1 and in_torch(exprs[0], values):
        note = f"{exprs[0].op.frontend_name} runs in torch" + _complex_reason(exprs[0], values)
        return Group(gid, SchedulerKind.TORCH, exprs, inputs, outputs, note=note), None
    state = kernel_state(ordered, index, outputs)
    if not isinstance(state, KernelState):
        return state
    fit = state.fit
    group = Group(
        gid, fit.kind, exprs, inputs, outputs, note=fit.note, space=fit.space, row_outputs=fit.row_outputs
    )
    return group, state


class GroupGraph:
    """Which group produces each value, and the group-to-group edges, kept up to date as groups merge.

    What each group reaches is a bitset (bit = group id), worked out when asked and kept until a merge
    below the group changes it: a merge forgets those of the groups above the merged one only.
    """

    def __init__(self, groups: Sequence[Group], fusion: Fusion) -> None:
        index = index_of(fusion)
        self._position = index.position
        self.groups = {g.id: g for g in groups}
        # value -> slot -> group: a merge moves the names of the smaller group's slot into the larger's
        self._slot: dict[str, int] = {}
        self._slot_names: dict[int, list[str]] = {}
        self._group_of_slot: dict[int, int] = {}
        self._slot_of_group: dict[int, int] = {}
        for g in groups:
            names = [name for e in g.exprs for name in e.outputs if name not in index.copied]
            self._slot.update(dict.fromkeys(names, g.id))
            self._slot_names[g.id], self._group_of_slot[g.id], self._slot_of_group[g.id] = names, g.id, g.id
        self.successors: dict[int, set[int]] = {g.id: set() for g in groups}
        self.predecessors: dict[int, set[int]] = {g.id: set() for g in groups}
        for g in groups:
            for producer in self._producers(g):
                self.successors[producer].add(g.id)
                self.predecessors[g.id].add(producer)
        # group -> the groups it reaches; if a group has one, so do all the groups it reaches
        self._below: dict[int, int] = {}

    def owner(self, name: str) -> int | None:
        """The group that computes `name`, or None for fusion inputs (and scalars every reader recomputes)."""
        slot = self._slot.get(name)
        return None if slot is None else self._group_of_slot[slot]

    def _producers(self, g: Group) -> set[int]:
        owners = {self.owner(name) for name in g.inputs}
        return owners - {None, g.id}

    def merge(self, a: int, b: int, merged: Group) -> None:
        """Replaces groups `a` and `b` by `merged`, which computes the exprs of both."""
        slot_a, slot_b = self._slot_of_group.pop(a), self._slot_of_group.pop(b)
        big, small = sorted((slot_a, slot_b), key=lambda slot: -len(self._slot_names[slot]))
        moved = self._slot_names.pop(small)
        self._slot.update(dict.fromkeys(moved, big))
        self._slot_names[big] += moved
        del self._group_of_slot[small]
        self._group_of_slot[big], self._slot_of_group[merged.id] = merged.id, big
        del self.groups[a], self.groups[b]
        self.groups[merged.id] = merged
        gone = {a, b}
        successors = (self.successors.pop(a) | self.successors.pop(b)) - gone
        predecessors = (self.predecessors.pop(a) | self.predecessors.pop(b)) - gone
        for s in successors:
            self.predecessors[s] -= gone
            self.predecessors[s].add(merged.id)
        for p in predecessors:
            self.successors[p] -= gone
            self.successors[p].add(merged.id)
        self.successors[merged.id], self.predecessors[merged.id] = successors, predecessors
        self._forget_above(merged.id, gone)

    def _forget_above(self, gid: int, gone: set[int]) -> None:
        """Drops what the groups reaching `gid` (and the `gone` ones) reach: it changed."""
        for g in gone:
            self._below.pop(g, None)
        stack = list(self.predecessors[gid])
        while stack:
            g = stack.pop()
            if self._below.pop(g, None) is not None:
                stack.extend(self.predecessors[g])

    def edge_tensor(self, producer: Group, consumer: Group) -> str | None:
        return next((n for n in consumer.inputs if self.owner(n) == producer.id), None)

    def detour(self, start: int, goal: int) -> int | None:
        """A group through which `start` reaches `goal` other than by a direct edge, or None."""
        if not self.has_detour(start, goal):
            return None
        return next(s for s in sorted(self.successors[start] - {goal}) if self._reached(s) >> goal & 1)

    def has_detour(self, start: int, goal: int) -> bool:
        """Whether `start` reaches `goal` other than by a direct edge: by an edge into `goal` from another
        group that `start` reaches."""
        others = self.predecessors[goal] - {start}
        if not others or not others.isdisjoint(self.successors[start]):
            return bool(others)
        reached = self._reached(start)
        return any(reached >> p & 1 for p in others)

    def reaches(self, start: int, goal: int) -> bool:
        return start == goal or bool(self._reached(start) >> goal & 1)

    def _reached(self, gid: int) -> int:
        """The bitset of the groups `gid` reaches through one or more edges."""
        below = self._below
        if gid in below:
            return below[gid]
        stack = [gid]
        while stack:
            g = stack[-1]
            pending = [s for s in self.successors[g] if s not in below]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            reached = 0
            for s in self.successors[g]:
                reached |= below[s] | 1 << s
            below[g] = reached
        return below[gid]

    def execution_order(self) -> list[Group]:
        """Groups in a topological order; among ready groups, the one with the earliest expr first."""
        position = self._position
        first_expr = {gid: min((position[e] for e in g.exprs), default=-1) for gid, g in self.groups.items()}
        waiting = {gid: len(self.predecessors[gid]) for gid in self.groups}
        ready = [(first_expr[gid], gid) for gid, n in waiting.items() if n == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, gid = heapq.heappop(ready)
            order.append(self.groups[gid])
            for t in self.successors[gid]:
                waiting[t] -= 1
                if waiting[t] == 0:
                    heapq.heappush(ready, (first_expr[t], t))
        assert len(order) == len(self.groups), "the group graph has a cycle"
        return order
