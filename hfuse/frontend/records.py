"""What a FusionDefinition records: one entry per definition call, in call order.

Records hold handles (the Tensor / Scalar objects the definition returned) and canonical
attributes (the names of the table in hfuse/ir.py). Attributes may still hold Scalar handles
(shape arguments), -1 extents and `Like` markers; binding to concrete inputs resolves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hfuse.dtypes import DataType, python_dtype
from hfuse.ir import Op
from hfuse.printer import format_call, format_define_scalar, format_define_tensor, format_output, script

if TYPE_CHECKING:
    from hfuse.frontend.handles import Scalar, Tensor

Position = tuple[int, int] | None  # (line, column) of the call in a script


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """A tensor input as declared. `shape` has -1 for symbolic extents and 1 for broadcast dims.

    `example_shape` / `example_strides` come from the sizes+strides form (and from_pytorch): they
    give the layout when the fusion is built without inputs.
    """

    shape: tuple[int, ...]
    dtype: DataType
    contiguity: tuple[bool | None, ...]  # in stride order when stride_order is given
    stride_order: tuple[int, ...]  # () means row-major
    is_cpu: bool = False
    example_shape: tuple[int, ...] | None = None
    example_strides: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class TensorInput:
    out: Tensor
    spec: TensorSpec
    loc: Position = None


@dataclass(frozen=True, slots=True, eq=False)
class ScalarInput:
    """A symbolic scalar: its value comes with the inputs. A `drawn` one is the seed of the random ops
    given no rng_seed: where the inputs leave it out, hfuse draws it at each call."""

    out: Scalar
    dtype: DataType
    loc: Position = None
    drawn: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class Like:
    """An attribute taken from a recorded tensor once the definition is bound: its `shape` or its `dtype`
    (rand_like and randn_like make a tensor like their operand)."""

    tensor: Tensor
    attribute: str  # "shape" or "dtype", a field of the bound Value

    def __repr__(self) -> str:  # as an unbound definition prints it
        return f"{self.tensor.name}.{self.attribute}()"


@dataclass(frozen=True, slots=True, eq=False)
class Constant:
    """A constant scalar. With `like` set, the dtype is that tensor's (pad's default zero)."""

    out: Scalar
    value: bool | int | float | complex
    dtype: DataType | None
    like: Tensor | None = None
    loc: Position = None


@dataclass(frozen=True, slots=True, eq=False)
class Extent:
    """`size(x, dim)`: a constant Int scalar once x's shape is known."""

    out: Scalar
    tensor: Tensor
    dim: int
    loc: Position = None


@dataclass(frozen=True, slots=True, eq=False)
class Call:
    op: Op
    inputs: tuple[Tensor | Scalar, ...]
    attrs: tuple[tuple[str, Any], ...]
    outputs: tuple[Tensor | Scalar, ...]
    loc: Position = None


@dataclass(frozen=True, slots=True, eq=False)
class OutputRecord:
    value: Tensor | Scalar
    alias_input: Tensor | None = None
    stride_order: tuple[int, ...] | None = None
    loc: Position = None


Record = TensorInput | ScalarInput | Constant | Extent | Call | OutputRecord


def print_records(records: Sequence[Record]) -> str:
    """A recorded (not yet bound) definition as a script: -1 for symbolic extents, Scalars in shapes."""
    lines = []
    for r in records:
        if isinstance(r, TensorInput):
            spec = r.spec
            lines.append(
                format_define_tensor(
                    r.out.name, spec.shape, spec.contiguity, spec.dtype, spec.stride_order, spec.is_cpu
                )
            )
        elif isinstance(r, ScalarInput):
            lines.append(format_define_scalar(r.out.name, None, r.dtype))
        elif isinstance(r, Constant):
            dtype = r.dtype or (None if r.like is not None else python_dtype(r.value))
            lines.append(format_define_scalar(r.out.name, r.value, dtype))
        elif isinstance(r, Extent):
            lines.append(f"{r.out.name} = fd.ops.size({r.tensor.name}, dim={r.dim})")
        elif isinstance(r, Call):
            lines.append(
                format_call(r.op, [h.name for h in r.inputs], [h.name for h in r.outputs], dict(r.attrs))
            )
        elif isinstance(r, OutputRecord):
            alias = None if r.alias_input is None else r.alias_input.name
            lines.append(format_output(r.value.name, alias, r.stride_order))
    return script(lines, None)
