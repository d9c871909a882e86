"""The script's inputs list: its torch tensors made for real, or their meta twins, or random inputs.

The tensors are recipes (`tensors.InputTensor`) already replayed on the meta device, where their
sizes were checked. `materialize` replays every step the inputs need once, in the order the script
wrote them, on the chosen device (or the CPU, where the script said 'cpu'), after checking the bytes
all of them allocate together against HFUSE_MAX_INPUT_BYTES.
"""

from __future__ import annotations

from typing import Any

import torch

from hfuse import settings
from hfuse.dtypes import DataType
from hfuse.errors import LimitError
from hfuse.ir import Fusion, Value
from hfuse.loader.tensors import InputTensor, check_bytes, first_line, replay
from hfuse.loader.values import CallSite, is_number
from hfuse.units import format_size


def recipe(values: list[Any]) -> list[InputTensor]:
    """Every tensor the values need made, each once, in the order the script made them."""
    seen: dict[int, InputTensor] = {}
    stack = [v for v in values if isinstance(v, InputTensor)]
    while stack:
        tensor = stack.pop()
        if tensor.serial in seen:
            continue
        seen[tensor.serial] = tensor
        stack.extend(a for a in _tensor_arguments(tensor.step.args) if a.serial not in seen)
        if tensor.base is not None:
            stack.append(tensor.base)
    return [seen[serial] for serial in sorted(seen)]


def _tensor_arguments(args: Any) -> list[InputTensor]:
    if isinstance(args, InputTensor):
        return [args]
    if isinstance(args, list | tuple):
        return [t for a in args for t in _tensor_arguments(a)]
    return []


def check_total_bytes(site: CallSite, inputs: list[Any]) -> None:
    """The bytes every step of the inputs allocates, together."""
    tensors = recipe(inputs)
    site.charge(len(tensors))
    check_bytes(site, sum(tensor.own_bytes for tensor in tensors))


def materialize(inputs: list[Any], device: torch.device) -> list[Any]:
    """The real inputs: each step replayed on `device` (or the CPU, where the script said 'cpu')."""
    made: dict[int, torch.Tensor] = {}
    for tensor in recipe(inputs):
        target = torch.device("cpu") if tensor.on_cpu else device
        base = None if tensor.base is None else made[tensor.base.serial]
        try:
            made[tensor.serial] = replay(tensor.step, base, target, made)
        except (RuntimeError, TypeError, ValueError, IndexError) as err:
            # Values the meta device does not look at: bounds of randint, low < high, ragged lists.
            assert tensor.step.site is not None
            raise tensor.step.site.error(f"{tensor.step.label}: {first_line(err)}") from None
    return [made[value.serial] if isinstance(value, InputTensor) else value for value in inputs]


def meta_twins(inputs: list[Any]) -> list[Any]:
    """The inputs with every tensor on the meta device (a 0-dim CPU tensor, nvFuser's CPU scalar, stays
    one): the definition can be built from these before anything is allocated."""
    twins = []
    for value in inputs:
        if isinstance(value, InputTensor) and value.on_cpu and value.meta.dim() == 0:
            twins.append(torch.empty((), dtype=value.meta.dtype))
        else:
            twins.append(value.meta if isinstance(value, InputTensor) else value)
    return twins


def is_input_list(value: Any) -> bool:
    """Tensors and numbers; a list of numbers gives the values of a define_vector(n)."""
    return isinstance(value, list | tuple) and all(
        isinstance(v, InputTensor) or is_number(v) or (isinstance(v, list | tuple) and all(map(is_number, v)))
        for v in value
    )


def random_inputs(fusion: Fusion, device: torch.device) -> list[Any]:
    """Inputs for a script without an inputs list: random tensors laid out as the definition says."""
    values = [fusion.value(name) for name in fusion.inputs]
    total = sum(_storage_elements(v.shape, v.strides) * v.dtype.itemsize for v in values if v.is_tensor)
    limit = settings.MAX_INPUT_BYTES.as_bytes()
    if total > limit:
        raise LimitError(
            f"the definition's inputs need {format_size(total)}; the inputs may take {format_size(limit)} "
            f"in all (set {settings.MAX_INPUT_BYTES.env})"
        )
    return [_random_tensor(v, device) if v.is_tensor else _EXAMPLE_SCALARS[_kind(v.dtype)] for v in values]


_EXAMPLE_SCALARS = {"float": 0.5, "int": 3, "bool": True, "complex": 0.5 + 0.25j}


def _kind(dtype: DataType) -> str:
    if dtype is DataType.Bool:
        return "bool"
    if dtype.is_complex:
        return "complex"
    return "int" if dtype.is_int else "float"


def _storage_elements(shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    if not all(shape):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))


def _random_tensor(value: Value, device: torch.device) -> torch.Tensor:
    count = _storage_elements(value.shape, value.strides)
    kind = _kind(value.dtype)
    if kind == "bool":
        flat = torch.randint(0, 2, (count,), device=device).bool()
    elif kind == "int":
        flat = torch.randint(0, 10, (count,), device=device).to(value.dtype.torch)
    else:
        flat = torch.randn(
            count, device=device, dtype=torch.complex64 if kind == "complex" else torch.float32
        )
        flat = flat.to(value.dtype.torch)
    return flat.as_strided(value.shape, value.strides)
