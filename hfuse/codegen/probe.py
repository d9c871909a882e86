"""Which iteration axis each global load's innermost dim follows.

Lowers the requested values once over symbolic positions (one per axis) and reads, from the
dependencies of every load's index, which axis walks each loaded tensor's stride-1 dim. Transpose
tiles and reduction layouts are chosen from this, so views between inputs and outputs (permute,
reshape, slice) are accounted for without a separate analysis.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from hfuse.codegen.code import Body
from hfuse.codegen.lower import Index, Lowering
from hfuse.ir import Expr, Fusion, Value
from hfuse.layout import innermost_dim


class _Opaque:
    """Stands in for reductions while probing: a reduced value moves no loads."""

    def reduce(self, lowering: Lowering, expr: Expr, index: Index) -> dict[str, str]:
        return {out: "0.0" for out in expr.outputs}


def load_axes(
    fusion: Fusion, exprs: Sequence[Expr], loads: Collection[str], shape: Sequence[int], names: Sequence[str]
) -> list[tuple[Value, int | None]]:
    """For each tensor loaded while computing `names` over `shape`: the axis its innermost dim follows."""
    body = Body()
    dims = tuple(
        body.define(f"p{k}", "0", frozenset({f"axis{k}"})) if extent != 1 else "0"
        for k, extent in enumerate(shape)
    )
    lowering = Lowering(fusion, exprs, loads, body, reducer=_Opaque())
    for name in names:
        lowering.value(name, Index(dims))
    found = []
    for name, index in lowering.loaded:
        value = fusion.value(name)
        inner = innermost_dim(value.shape, value.strides)
        if inner is None:
            continue
        axes = body.deps_of(index.dims[inner])
        found.append((value, int(next(iter(axes)).removeprefix("axis")) if len(axes) == 1 else None))
    return found
