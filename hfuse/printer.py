"""Prints a Fusion as a runnable nvFuser script in the layout Thunder writes repros in.

One line per input, constant, expr and output, in the modern spelling with keywords, in the
order the values were created, so replaying the script through FusionDefinition gives the same
value names (T0.., S0..), the same canonical attributes and, with the printed `inputs`, the
same strides: an equal Fusion.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hfuse.dtypes import DataType
from hfuse.infer.attention import operand_names
from hfuse.ir import Family, Fusion, Op, Value, contiguous_strides
from hfuse.layout import layout_of

FUNCTION_NAME = "nvfuser_fusion_id0"
INDENT = "    "

# canonical attribute -> keyword of the frontend call, where they differ
KEYWORDS = {"starts": "start_indices", "ends": "end_indices"}
# the order attributes are written in; others follow, sorted
ATTR_ORDER = (
    "shape", "new_shape", "broadcast_dims", "is_broadcast_dim", "starts", "ends", "strides", "pad_widths",
    "dims", "dim", "k", "correction", "keepdim", "descending", "stable", "largest", "sorted", "stride_order",
    "diagonal", "length", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse", "dtype",
)  # fmt: skip
# ops whose operands are written as keywords, in this order (None: positional)
INPUT_KEYWORDS = {
    Op.FULL: ("fill_value",),
    Op.IOTA: ("start", "step"),
    Op.PAD: (None, "value"),
    Op.UNIFORM: (None, None, "rng_seed", "rng_offset"),
    Op.NORMAL: (None, None, "rng_seed", "rng_offset"),
}
# operands of the attention ops written by position (the others by keyword; `has_*` attributes unwritten)
ATTENTION_POSITIONAL = frozenset({"query", "key", "value", "grad_output", "output", "logsumexp"})
# ops whose dtype is written last, after the operands written as keywords
DTYPE_LAST = frozenset({Op.FULL, Op.IOTA, Op.UNIFORM, Op.NORMAL})


def literal(value: Any) -> str:
    """Python source for an attribute or scalar value. Handles print as their names."""
    if isinstance(value, DataType):
        return f"DataType.{value.name}"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return f'float("{value}")'
        return repr(value)
    if isinstance(value, complex):
        return f"complex({literal(value.real)}, {literal(value.imag)})"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(value)


def _ordered(attrs: Mapping[str, Any]) -> list[tuple[str, Any]]:
    known = [(k, attrs[k]) for k in ATTR_ORDER if k in attrs]
    return known + sorted((k, v) for k, v in attrs.items() if k not in ATTR_ORDER)


def format_call(op: Op, inputs: Sequence[str], outputs: Sequence[str], attrs: Mapping[str, Any]) -> str:
    """`T2 = fd.ops.reshape(T1, new_shape=[...])`: the frontend call of one expr."""
    if op.family is Family.ATTENTION:
        arguments = ", ".join(_attention_arguments(op, inputs, attrs))
        return f"{', '.join(outputs)} = fd.ops.{op.frontend_name}({arguments})"
    args: list[str] = []
    if op is Op.CAT:
        args.append("[" + ", ".join(inputs) + "]")
    elif op in INPUT_KEYWORDS:
        for keyword, name in zip(INPUT_KEYWORDS[op], inputs, strict=False):
            if keyword is None:
                args.append(name)
    else:
        args.extend(inputs)
    ordered = _ordered(attrs)
    if op in DTYPE_LAST:  # shape / length first, the operands, then dtype
        head, tail = ordered[:-1], ordered[-1:]
    else:
        head, tail = ordered, []
    args.extend(f"{KEYWORDS.get(k, k)}={literal(v)}" for k, v in head)
    for keyword, name in zip(INPUT_KEYWORDS.get(op, ()), inputs, strict=False):
        if keyword is not None:
            args.append(f"{keyword}={name}")
    args.extend(f"{KEYWORDS.get(k, k)}={literal(v)}" for k, v in tail)
    return f"{', '.join(outputs)} = fd.ops.{op.frontend_name}({', '.join(args)})"


def _attention_arguments(op: Op, inputs: Sequence[str], attrs: Mapping[str, Any]) -> list[str]:
    """The tensors by position, the rest by keyword; sdpfa_bwd takes scale=None where it has no scale (nvFuser
    asks for it), sdpfa_fwd leaves out what it has not (the frontend before bias and mask reads it too)."""
    roles = operand_names(op, dict(attrs))
    args = [
        name if role in ATTENTION_POSITIONAL else f"{role}={name}"
        for role, name in zip(roles, inputs, strict=True)
    ]
    if op is Op.SDPFA_BWD and "scale" not in roles:
        args.append("scale=None")
    return args


def format_define_tensor(
    name: str,
    shape: Sequence[int],
    contiguity: Sequence[bool | None],
    dtype: DataType,
    stride_order: Sequence[int] | None,
    is_cpu: bool = False,
) -> str:
    order = f", stride_order={literal(list(stride_order))}" if stride_order else ""
    return (
        f"{name} = fd.define_tensor(shape={literal(list(shape))}, contiguity={literal(list(contiguity))}, "
        f"dtype={literal(dtype)}, is_cpu={is_cpu}{order})"
    )


def format_define_scalar(name: str, value: Any, dtype: DataType | None) -> str:
    suffix = "" if dtype is None else f", dtype={literal(dtype)}"
    return f"{name} = fd.define_scalar({literal(value)}{suffix})"


def format_output(
    name: str, alias_input: str | None = None, stride_order: Sequence[int] | None = None
) -> str:
    extra = f", alias_input={alias_input}" if alias_input else ""
    if stride_order:
        extra += f", stride_order={literal(list(stride_order))}"
    return f"fd.add_output({name}{extra})"


def script(body: Iterable[str], inputs: Sequence[str] | None) -> str:
    """A runnable script around definition lines: imports, the definition function, and (when given)
    the `inputs` list and `fd.execute(inputs)`."""
    lines = ["import torch", "from nvfuser import FusionDefinition, DataType", ""]
    lines.append(f"def {FUNCTION_NAME}(fd : FusionDefinition) -> None :")
    body = list(body)
    lines.extend(INDENT + line for line in body or ["pass"])
    lines += ["", "with FusionDefinition() as fd:", f"{INDENT}{FUNCTION_NAME}(fd)"]
    if inputs is not None:
        lines += ["", "inputs = ["]
        lines.extend(f"{INDENT}{entry}," for entry in inputs)
        lines += ["]", "fd.execute(inputs)"]
    return "\n".join(lines) + "\n"


def _tuple(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ("," if len(values) == 1 else "") + ")"


def _storage_size(value: Value) -> int:
    if value.numel == 0:
        return 0
    return 1 + sum((extent - 1) * stride for extent, stride in zip(value.shape, value.strides, strict=True))


def _example_input(value: Value, device: str, scalar_values: Mapping[str, Any]) -> str:
    if value.is_scalar:
        if value.name in scalar_values:
            return literal(scalar_values[value.name])
        if value.dtype is DataType.Bool:
            return "True"
        if value.dtype.is_int:
            return "2"
        return literal(complex(2.0, 0.0) if value.dtype.is_complex else 2.0)
    dtype = f"dtype={value.dtype.torch}, device={device!r}"
    if value.strides == contiguous_strides(value.shape):
        return f"torch.testing.make_tensor({_tuple(value.shape)}, {dtype})"
    size = _storage_size(value)
    if value.dtype is DataType.Bool or value.dtype.is_int:
        high = 2 if value.dtype is DataType.Bool else 10
        storage = f"torch.randint(0, {high}, ({size},), {dtype})"
    else:
        storage = f"torch.randn({size}, {dtype})"
    return f"{storage}.as_strided({_tuple(value.shape)}, {_tuple(value.strides)})"


def _fusion_lines(fusion: Fusion) -> list[str]:
    producers = {name: expr for expr in fusion.exprs for name in expr.outputs}
    inputs = set(fusion.inputs)
    lines = []
    for value in fusion.values:
        if value.name in inputs and value.is_tensor:
            contiguity, stride_order = layout_of(value.shape, value.strides)
            lines.append(format_define_tensor(value.name, value.shape, contiguity, value.dtype, stride_order))
        elif value.name in inputs:
            lines.append(format_define_scalar(value.name, None, value.dtype))
        elif value.name in producers:
            expr = producers[value.name]
            if expr.outputs[0] == value.name:
                lines.append(format_call(expr.op, expr.inputs, expr.outputs, expr.attr_dict))
        else:
            lines.append(format_define_scalar(value.name, value.const, value.dtype))
    lines.extend(format_output(o.name, o.alias_input, o.stride_order) for o in fusion.outputs)
    return lines


def print_fusion(
    fusion: Fusion, *, scalar_values: Mapping[str, Any] | None = None, device: str = "cuda:0"
) -> str:
    """The fusion as a runnable script: definition, `inputs` (random tensors of the fusion's
    shapes and strides; symbolic scalars from `scalar_values`, else 2 / 2.0 / True) and execute."""
    values = fusion.value_map
    examples = [_example_input(values[name], device, scalar_values or {}) for name in fusion.inputs]
    return script(_fusion_lines(fusion), examples)
