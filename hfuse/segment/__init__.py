"""Segmentation: which exprs each kernel computes, and why the kernels are cut where they are.

`segment` starts from one group per expr (aliased outputs in one ALIAS group), then merges:
vertically along edges, same-space groups into one kernel, the rest into shared launches (one loop
drives the three steps, see `merge`). The `naive` strategy only merges along single-reader chains
without reductions and never horizontally: one kernel per op chain, as fusion compilers once did
for the QKV split. `recompute_crossings` then lets a kernel recompute a cheap tensor that another one
would write for it to read back (see `recompute`).
"""

from __future__ import annotations

from collections.abc import Sequence

from hfuse.backends import HFUSE, NAIVE, STRATEGIES
from hfuse.errors import UnsupportedError
from hfuse.ir import Expr, Fusion
from hfuse.segment.analysis import KernelState
from hfuse.segment.finish import finish
from hfuse.segment.graph import build_group, index_of
from hfuse.segment.legality import Verdict, can_fuse, can_share_launch
from hfuse.segment.merge import Merger
from hfuse.segment.model import (
    AliasInfo,
    Boundary,
    Group,
    IterSpace,
    Recomputed,
    RefusedMerge,
    SchedulerKind,
    Segmentation,
)
from hfuse.segment.recompute import recompute
from hfuse.segment.steps import Horizontal, SameSpace, Vertical, is_chain_link


def segment(fusion: Fusion, *, strategy: str = HFUSE, alias: Sequence[AliasInfo] = ()) -> Segmentation:
    """Cuts `fusion` into groups. `alias` lists the outputs served as views of inputs (from the alias
    pass); the naive strategy ignores it and computes every output with a kernel."""
    if strategy not in STRATEGIES:
        raise UnsupportedError(
            f"segmentation strategy {strategy!r} is unknown; use one of {', '.join(STRATEGIES)}"
        )
    aliases = tuple(alias) if strategy == HFUSE else ()
    alias_exprs = _alias_exprs(fusion, aliases)
    groups: list[tuple[Group, KernelState | None]] = []
    if aliases:
        inputs = tuple(dict.fromkeys(a.input for a in aliases))
        outputs = tuple(a.output for a in aliases)
        note = "outputs are strided views of inputs: no data moves"
        groups.append((Group(0, SchedulerKind.ALIAS, tuple(alias_exprs), inputs, outputs, note=note), None))
    index = index_of(fusion)
    taken = {index.position[e] for e in alias_exprs} | index.copied_positions
    rest = [p for p in range(len(fusion.exprs)) if p not in taken]
    groups += [build_group(len(groups) + i, [p], index) for i, p in enumerate(rest)]
    merger = Merger(groups, fusion)
    if strategy == NAIVE:
        merger.run([Vertical(allowed=is_chain_link)])
    else:
        merger.run([Vertical(), SameSpace(), Horizontal()])
    return finish(merger.groups, fusion, strategy, aliases)


def recompute_crossings(fusion: Fusion, segmentation: Segmentation) -> tuple[Fusion, Segmentation]:
    """The fusion with the copies of the tensors that kernels recompute rather than read back, and its
    segmentation (see `recompute`); both unchanged when none is worth it or the strategy is not hfuse."""
    if segmentation.strategy != HFUSE:
        return fusion, segmentation
    new, groups, recomputed = recompute(fusion, segmentation.groups)
    if not recomputed:
        return fusion, segmentation
    return new, finish(groups, new, segmentation.strategy, segmentation.aliases, recomputed)


def _alias_exprs(fusion: Fusion, aliases: Sequence[AliasInfo]) -> list[Expr]:
    """The view exprs that compute the aliased outputs (the alias pass made them private to those)."""
    producers = {name: e for e in fusion.exprs for name in e.outputs}
    chain: set[Expr] = set()
    stack = [a.output for a in aliases]
    while stack:
        expr = producers.get(stack.pop())
        if expr is not None and expr not in chain:
            chain.add(expr)
            stack.extend(expr.inputs)
    return [e for e in fusion.exprs if e in chain]


__all__ = [
    "AliasInfo",
    "Boundary",
    "Group",
    "IterSpace",
    "Recomputed",
    "RefusedMerge",
    "SchedulerKind",
    "Segmentation",
    "Verdict",
    "can_fuse",
    "can_share_launch",
    "recompute_crossings",
    "segment",
]
