"""Checks that a Fusion is well formed. Runs after parsing and after every pass in tests."""

from __future__ import annotations

from hfuse.errors import DefinitionError, loc_of
from hfuse.ir import Fusion


def _window(fusion: Fusion, index: int, radius: int = 2) -> str:
    lines = []
    for i in range(max(index - radius, 0), min(index + radius + 1, len(fusion.exprs))):
        marker = ">>" if i == index else "  "
        lines.append(f"{marker} {fusion.exprs[i]}")
    return "\n".join(lines)


def verify(fusion: Fusion) -> None:
    values = fusion.value_map
    if len(values) != len(fusion.values):
        raise DefinitionError("two values share a name")
    defined = set()
    for name in fusion.inputs:
        if name not in values:
            raise DefinitionError(f"input {name} is not a value of the fusion")
        defined.add(name)
    produced = {name for expr in fusion.exprs for name in expr.outputs}
    defined.update(
        v.name for v in fusion.values if v.is_scalar and v.const is not None and v.name not in produced
    )
    for index, expr in enumerate(fusion.exprs):
        for name in expr.inputs:
            if name not in defined:
                raise DefinitionError(
                    f"{name} is used before it is defined\n{_window(fusion, index)}",
                    expr=str(expr),
                    loc=loc_of(expr.loc),
                )
        for name in expr.outputs:
            if name in defined:
                raise DefinitionError(f"{name} is defined twice\n{_window(fusion, index)}", expr=str(expr))
            if name not in values:
                raise DefinitionError(f"{name} has no value record\n{_window(fusion, index)}", expr=str(expr))
            defined.add(name)
    for out in fusion.outputs:
        if out.name not in defined:
            raise DefinitionError(f"output {out.name} is never computed")
        if out.alias_input is not None and out.alias_input not in fusion.inputs:
            raise DefinitionError(f"output {out.name} aliases {out.alias_input}, which is not an input")
        value = values[out.name]
        if out.stride_order is not None and sorted(out.stride_order) != list(range(value.rank)):
            raise DefinitionError(
                f"output {out.name}: stride_order {list(out.stride_order)} "
                f"is not a permutation of 0..{value.rank - 1}"
            )
