"""Evaluates a Fusion op by op with torch, each op by its meaning in the op table: the oracle of every test.

Runs on the device of the input tensors. Every result is cast to the dtype the IR inferred for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from hfuse.errors import DefinitionError, UnsupportedError
from hfuse.ir import Expr, Fusion, Value
from hfuse.ops import OPS, scalar_tensor

Number = bool | int | float | complex


def _bind_input(value: Value, given: Any, device: torch.device) -> torch.Tensor:
    if value.is_scalar:
        if isinstance(given, torch.Tensor) and given.dim() != 0:
            raise DefinitionError(
                f"input {value.describe()} is a scalar but a tensor of shape {list(given.shape)} was given"
            )
        if not isinstance(given, Number | torch.Tensor):
            raise DefinitionError(f"input {value.describe()} needs a number, got {type(given).__name__}")
        return scalar_tensor(given, value.dtype, device)
    if not isinstance(given, torch.Tensor):
        raise DefinitionError(f"input {value.describe()} needs a tensor, got {type(given).__name__}")
    if tuple(given.shape) != value.shape:
        raise DefinitionError(
            f"input {value.describe()} was given a tensor of shape {list(given.shape)}; "
            "rebuild the fusion for it"
        )
    if given.dtype != value.dtype.torch:
        raise DefinitionError(
            f"input {value.describe()} was given a tensor of dtype {given.dtype}; pass {value.dtype.torch}"
        )
    return given


def _run_expr(
    expr: Expr, env: dict[str, torch.Tensor], values: dict[str, Value], device: torch.device
) -> None:
    definition = OPS.get(expr.op)
    if definition is None:
        raise UnsupportedError(f"{expr}: the reference has no meaning for {expr.op.frontend_name} yet")
    out_values = [values[name] for name in expr.outputs]
    args = [env[name] for name in expr.inputs]
    try:
        results = definition.meaning(args, expr.attr_dict, [v.dtype for v in out_values], device)
    except (RuntimeError, IndexError, ZeroDivisionError, ValueError, OverflowError) as err:
        raise DefinitionError(
            f"torch could not evaluate it with these inputs: {err}; check the input values", expr=str(expr)
        ) from None
    if isinstance(results, torch.Tensor):
        results = (results,)
    for value, result in zip(out_values, results, strict=True):
        assert tuple(result.shape) == value.shape, (
            f"{expr}: torch gave {list(result.shape)} for {value.describe()}"
        )
        env[value.name] = result.to(value.dtype.torch)


def evaluate_env(
    fusion: Fusion, inputs: Sequence[Any], *, write_aliases: bool = True
) -> dict[str, torch.Tensor]:
    """Every value of the fusion as a tensor (scalars 0-dim). An output with `alias_input` is copied into
    that input tensor, in place, unless `write_aliases` is False."""
    if len(inputs) != len(fusion.inputs):
        raise DefinitionError(
            f"the fusion takes {len(fusion.inputs)} inputs ({', '.join(fusion.inputs)}), "
            f"{len(inputs)} were given"
        )
    values = fusion.value_map
    # Without tensor inputs (a fusion of creation and random ops), on the device kernels run on.
    default = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = next((t.device for t in inputs if isinstance(t, torch.Tensor) and t.dim() > 0), default)
    env = {
        name: _bind_input(values[name], given, device)
        for name, given in zip(fusion.inputs, inputs, strict=True)
    }
    for value in fusion.values:
        if value.is_scalar and value.const is not None:
            env[value.name] = scalar_tensor(value.const, value.dtype, device)
    for expr in fusion.exprs:
        _run_expr(expr, env, values, device)
    for out in fusion.outputs:
        if out.alias_input is not None and write_aliases:
            target = env[out.alias_input]
            target.copy_(env[out.name])
            env[out.name] = target
    return env


def evaluate_values(fusion: Fusion, inputs: Sequence[Any]) -> dict[str, torch.Tensor | Number]:
    """Every value of the fusion: tensors as torch tensors, scalars as Python numbers."""
    env = evaluate_env(fusion, inputs)
    values = fusion.value_map
    return {name: t.item() if values[name].is_scalar else t for name, t in env.items()}


def evaluate(fusion: Fusion, inputs: Sequence[Any], *, write_aliases: bool = True) -> list[torch.Tensor]:
    """The fusion's outputs in order (scalars as 0-dim tensors). An output with `alias_input` is
    also copied into that input tensor, in place, unless `write_aliases` is False."""
    env = evaluate_env(fusion, inputs, write_aliases=write_aliases)
    return [env[out.name] for out in fusion.outputs]
