"""Binds a recorded definition to concrete inputs: replays its records into a FusionBuilder.

Symbolic (-1) extents and all strides come from the input tensors. Scalars used as shape
arguments (reshape, full, broadcast_in_dim, expand, slice, iota, pad, define_vector entries)
take their values from the inputs; the scalar inputs themselves stay symbolic inputs of the
Fusion. Without inputs, only a definition whose shape arguments are all known can be built.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import torch

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType, int_range, python_dtype
from hfuse.errors import DefinitionError, loc_of
from hfuse.frontend.handles import Handle, Scalar
from hfuse.frontend.records import (
    Call,
    Constant,
    Extent,
    Like,
    OutputRecord,
    Record,
    ScalarInput,
    TensorInput,
    TensorSpec,
)
from hfuse.ir import Fusion, Value
from hfuse.layout import strides_for
from hfuse.ops import fold_constant

NUMBER_TYPES = (bool, int, float, complex)


def coerce(value: bool | int | float | complex, dtype: DataType, where: str) -> bool | int | float | complex:
    """`value` as the Python type of `dtype`; refuses conversions that lose information."""
    if dtype.is_complex:
        return complex(value)
    if isinstance(value, complex):
        raise DefinitionError(
            f"{where}: the complex value {value!r} does not fit {dtype!r}; use a complex dtype"
        )
    if dtype is DataType.Bool:
        if value not in (0, 1):
            raise DefinitionError(f"{where}: {value!r} is not a Bool; use True or False")
        return bool(value)
    if dtype.is_int:
        if isinstance(value, float) and not value.is_integer():
            raise DefinitionError(f"{where}: {value!r} is not a whole number, so it cannot be {dtype!r}")
        low, high = int_range(dtype)
        if not low <= value <= high:
            raise DefinitionError(
                f"{where}: {value!r} does not fit {dtype!r}, which holds {low} to {high}; "
                "use a value in that range, or a floating-point dtype"
            )
        return int(value)
    try:
        return float(value)
    except OverflowError:
        raise DefinitionError(
            f"{where}: {value!r} is beyond the range of {dtype!r}; use a smaller value"
        ) from None


def input_records(records: Sequence[Record]) -> list[TensorInput | ScalarInput]:
    return [r for r in records if isinstance(r, TensorInput | ScalarInput)]


def draw_seed() -> int:
    """A seed for the random ops given none, from torch's default generator: new at each call, repeatable
    after torch.manual_seed."""
    return int(torch.randint(0, 2**63 - 1, ()).item())


def with_seeds(
    records: Sequence[Record], inputs: list[Any] | None, seed: Callable[[], int]
) -> list[Any] | None:
    """Flat inputs with a `seed()` in the place of each drawn seed (see ScalarInput) they leave out; inputs
    that give every declared input, drawn seeds included, are returned as they are."""
    declared = input_records(records)
    drawn = [isinstance(r, ScalarInput) and r.drawn for r in declared]
    if inputs is None or not any(drawn) or len(inputs) != len(declared) - sum(drawn):
        return inputs
    given = iter(inputs)
    return [seed() if is_drawn else next(given) for is_drawn in drawn]


def _scalars_in(attr: Any) -> list[Scalar]:
    if isinstance(attr, Scalar):
        return [attr]
    if isinstance(attr, tuple | list):
        return [s for item in attr for s in _scalars_in(item)]
    return []


def shape_scalar_inputs(records: Sequence[Record]) -> set[str]:
    """Names of the symbolic scalar inputs that some shape argument depends on."""
    producers = {out.name: r for r in records if isinstance(r, Call) for out in r.outputs}
    pending = [s for r in records if isinstance(r, Call) for _, attr in r.attrs for s in _scalars_in(attr)]
    seen: set[str] = set()
    while pending:
        handle = pending.pop()
        if handle.name in seen:
            continue
        seen.add(handle.name)
        producer = producers.get(handle.name)
        if producer is not None:
            pending.extend(v for v in producer.inputs if isinstance(v, Scalar))
    return {r.out.name for r in records if isinstance(r, ScalarInput) and r.out.name in seen}


def signature(records: Sequence[Record], inputs: Sequence[Any] | None) -> Hashable:
    """What the built Fusion depends on: extents, strides and dtypes of tensors, values of shape scalars."""
    if inputs is None:
        return None
    shape_scalars = shape_scalar_inputs(records)
    names = [r.out.name for r in input_records(records)]
    key: list[Hashable] = [len(inputs)]
    for i, value in enumerate(inputs):
        if isinstance(value, torch.Tensor):
            key.append(("tensor", tuple(value.shape), tuple(value.stride()), value.dtype, value.device.type))
        elif isinstance(value, NUMBER_TYPES):
            shaping = i < len(names) and names[i] in shape_scalars
            key.append(("scalar", type(value).__name__, value if shaping else None))
        else:
            key.append(("other", id(value)))
    return tuple(key)


def _kind_of(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a {value.dtype} tensor of shape {list(value.shape)}"
    return f"{type(value).__name__} {value!r}"


class Replay:
    """One replay of the records into a FusionBuilder."""

    def __init__(self, records: Sequence[Record], inputs: Sequence[Any] | None) -> None:
        self.records = records
        self.inputs = inputs
        self.builder = FusionBuilder()
        self.values: dict[str, Value] = {}
        self.known: dict[str, Any] = {}
        self.producers = {out.name: r for r in records if isinstance(r, Call) for out in r.outputs}

    def run(self) -> Fusion:
        declared = input_records(self.records)
        if self.inputs is not None and len(self.inputs) != len(declared):
            names = ", ".join(r.out.name for r in declared) or "none"
            drawn = [r.out.name for r in declared if isinstance(r, ScalarInput) and r.drawn]
            seed = (
                f" ({drawn[0]} is the seed of the random ops given no rng_seed: hfuse draws it)"
                if drawn
                else ""
            )
            raise DefinitionError(
                f"the definition has {len(declared)} inputs ({names}) but {len(self.inputs)} values were "
                f"given; pass one value per fd.define_tensor / fd.define_scalar, in definition order{seed}"
            )
        next_input = 0
        for record in self.records:
            if isinstance(record, TensorInput | ScalarInput):
                given = None if self.inputs is None else self.inputs[next_input]
                if isinstance(record, TensorInput):
                    self._tensor_input(record, next_input, given)
                else:
                    self._scalar_input(record, next_input, given)
                next_input += 1
            elif isinstance(record, Constant):
                self._constant(record)
            elif isinstance(record, Extent):
                extent = self.values[record.tensor.name].shape[record.dim]
                self._set(record.out, self.builder.define_scalar(DataType.Int, const=extent))
            elif isinstance(record, Call):
                self._call(record)
            else:
                self._output(record)
        return self.builder.build()

    def _set(self, handle: Handle, value: Value) -> None:
        self.values[handle.name] = value
        if value.is_scalar and value.const is not None:
            self.known[handle.name] = value.const

    def _tensor_input(self, record: TensorInput, index: int, given: Any) -> None:
        spec, name = record.spec, record.out.name
        expected = f"a {spec.dtype.name} tensor of rank {len(spec.shape)}"
        if given is None:
            shape, strides = self._declared_layout(record)
        else:
            if (
                not isinstance(given, torch.Tensor)
                or given.dtype != spec.dtype.torch
                or given.dim() != len(spec.shape)
            ):
                raise DefinitionError(
                    f"input {index} ({name}): expected {expected}, got {_kind_of(given)}",
                    loc=loc_of(record.loc),
                )
            shape, strides = tuple(given.shape), tuple(given.stride())
            for dim, (declared, actual) in enumerate(zip(spec.shape, shape, strict=True)):
                if declared != -1 and declared != actual:
                    raise DefinitionError(
                        f"input {index} ({name}): dim {dim} is declared with extent {declared}, got a tensor "
                        f"of shape {list(shape)}; declare it as -1 to accept any extent",
                        loc=loc_of(record.loc),
                    )
        self._set(record.out, self.builder.define_tensor(shape, spec.dtype, strides))

    def _declared_layout(self, record: TensorInput) -> tuple[tuple[int, ...], tuple[int, ...]]:
        spec = record.spec
        if spec.example_shape is not None and spec.example_strides is not None:
            return spec.example_shape, spec.example_strides
        if -1 in spec.shape:
            raise DefinitionError(
                f"input {record.out.name} has symbolic extents {list(spec.shape)}: pass the input tensors, "
                "as in fd.fusion(inputs) or fd.execute(inputs), so hfuse knows its shape; for a script, add "
                f"for example (sizes of your choice where -1 is declared):\n{example_inputs(self.records)}",
                loc=loc_of(record.loc),
            )
        return spec.shape, strides_for(spec.shape, spec.stride_order)

    def _scalar_input(self, record: ScalarInput, index: int, given: Any) -> None:
        name = record.out.name
        if isinstance(given, torch.Tensor) and given.dim() == 0:
            given = given.item()
        if given is not None:
            if not isinstance(given, NUMBER_TYPES):
                raise DefinitionError(
                    f"input {index} ({name}): expected a {record.dtype.name} scalar (a Python number), "
                    f"got {_kind_of(given)}",
                    loc=loc_of(record.loc),
                )
            self.known[name] = coerce(given, record.dtype, f"input {index} ({name})")
        self.values[name] = self.builder.define_scalar(record.dtype)

    def _constant(self, record: Constant) -> None:
        dtype = record.dtype
        if record.like is not None:
            dtype = self.values[record.like.name].dtype
        if dtype is None:
            dtype = python_dtype(record.value)
        value = coerce(record.value, dtype, f"constant {record.out.name}")
        self._set(record.out, self.builder.define_scalar(dtype, const=value))

    def _call(self, record: Call) -> None:
        attrs = {key: self._resolve(attr, record) for key, attr in record.attrs}
        operands = [self.values[h.name] for h in record.inputs]
        outputs = self.builder.add(record.op, operands, attrs, loc=record.loc)
        for handle, value in zip(record.outputs, outputs, strict=True):
            self._set(handle, value)

    def _resolve(self, attr: Any, record: Call) -> Any:
        if isinstance(attr, Scalar):
            return self._known_value(attr, record)
        if isinstance(attr, Like):
            return getattr(self.values[attr.tensor.name], attr.attribute)
        if isinstance(attr, tuple):  # a shape: nvFuser casts a Double extent such as 192 * (1 / 32) to Index
            return tuple(
                _whole(self._resolve(item, record)) if isinstance(item, Scalar) else item for item in attr
            )
        return attr

    def _known_value(self, handle: Scalar, user: Call) -> Any:
        if handle.name in self.known:
            return self.known[handle.name]
        producer = self.producers.get(handle.name)
        if producer is None:
            raise DefinitionError(
                f"{handle.name} is a symbolic scalar used as a shape argument of {user.op.frontend_name}; "
                "its value comes with the inputs: pass them, as in fd.fusion(inputs) or fd.execute(inputs)",
                loc=loc_of(user.loc),
            )
        operands = [(self._known_value(h, user), self.values[h.name].dtype) for h in producer.inputs]
        value = self.values[handle.name]
        self.known[handle.name] = fold_constant(producer.op, operands, dict(producer.attrs), value.dtype)
        return self.known[handle.name]

    def _output(self, record: OutputRecord) -> None:
        alias = None if record.alias_input is None else self.values[record.alias_input.name]
        self.builder.add_output(self.values[record.value.name], alias, record.stride_order)


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def build(records: Sequence[Record], inputs: Sequence[Any] | None) -> Fusion:
    return Replay(records, inputs).run()


EXAMPLE_EXTENT = 8  # what the example inputs take for a symbolic extent


def example_inputs(records: Sequence[Record]) -> str:
    """Script lines that make inputs a definition accepts: each declared tensor with its dtype and its
    declared extents, EXAMPLE_EXTENT for the symbolic ones, in its stride order; a number for a scalar."""
    lines = ["inputs = ["]
    for record in input_records(records):
        if isinstance(record, ScalarInput):
            lines.append(f"    {_example_number(record)!r},")
            continue
        shape, permutation = _example_layout(record.spec)
        made = _example_tensor(shape, record.spec.dtype)
        if permutation is not None:
            made += f".permute({', '.join(map(str, permutation))})"
        lines.append(f"    {made},")
    return "\n".join([*lines, "]", "fd.execute(inputs)"])


def example_tensors(records: Sequence[Record]) -> list[Any]:
    """The inputs `example_inputs` writes, as meta tensors (and numbers for the scalars)."""
    made: list[Any] = []
    for record in input_records(records):
        if isinstance(record, ScalarInput):
            made.append(_example_number(record))
            continue
        shape, permutation = _example_layout(record.spec)
        tensor = torch.empty(shape, dtype=record.spec.dtype.torch, device="meta")
        made.append(tensor if permutation is None else tensor.permute(permutation))
    return made


def _example_number(record: ScalarInput) -> Any:
    return _EXAMPLE_NUMBERS.get(record.dtype, 0.5)


def _example_layout(spec: TensorSpec) -> tuple[list[int], list[int] | None]:
    """The shape to make, outermost dim first, and the permutation that gives the declared dim order
    (None where they are the same)."""
    shape = [EXAMPLE_EXTENT if extent == -1 else extent for extent in spec.shape]
    order = list(spec.stride_order) or list(range(len(shape) - 1, -1, -1))
    outer_first = sorted(range(len(shape)), key=lambda d: -order[d])  # dims from the largest stride
    permutation = [outer_first.index(d) for d in range(len(shape))]
    return [shape[d] for d in outer_first], None if outer_first == list(range(len(shape))) else permutation


_EXAMPLE_NUMBERS = {DataType.Int: 3, DataType.Int32: 3, DataType.Bool: True}


def _example_tensor(shape: list[int], dtype: DataType) -> str:
    size = ", ".join(map(str, shape))
    torch_dtype = str(dtype.torch)  # "torch.bfloat16"
    if dtype is DataType.Bool:
        return f"(torch.rand({size}, device='cuda') > 0.5)"
    if dtype.is_int:
        sizes = f"({size},)" if len(shape) == 1 else f"({size})"
        return f"torch.randint(0, 8, {sizes}, dtype={torch_dtype}, device='cuda')"
    return f"torch.randn({size}, dtype={torch_dtype}, device='cuda')"
