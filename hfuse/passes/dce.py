"""Dead code elimination: exprs whose outputs reach no fusion output are removed, and so are the
values nothing refers to any more. Fusion inputs stay: they are the fusion's signature."""

from __future__ import annotations

from hfuse.ir import Fusion


def eliminate_dead_code(fusion: Fusion) -> Fusion:
    live = set(fusion.output_names)
    kept = []
    for expr in reversed(fusion.exprs):
        if any(name in live for name in expr.outputs):
            kept.append(expr)
            live.update(expr.inputs)
    kept.reverse()
    referenced = set(fusion.inputs) | set(fusion.output_names)
    for expr in kept:
        referenced.update(expr.inputs)
        referenced.update(expr.outputs)
    values = tuple(v for v in fusion.values if v.name in referenced)
    return Fusion(values, fusion.inputs, tuple(kept), fusion.outputs)
