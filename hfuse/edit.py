"""Edits a fusion one step at a time (add an input, an op, an output), as the app's op builder does, and
the what-if cut (a `segment_set` before the readers of a tensor).

Each edit replays the fusion into a FusionBuilder and adds one thing, so shape inference checks it
exactly as it checks a parsed definition. The caller prints the result as a definition script.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType, python_dtype
from hfuse.errors import DefinitionError
from hfuse.ir import Family, Fusion, Op, Value


@dataclass(frozen=True, slots=True)
class Param:
    """An attribute the builder asks for: `kind` is ints, int, float, bool or dtype."""

    name: str
    kind: str
    default: str = ""


@dataclass(frozen=True, slots=True)
class OpForm:
    """What to ask for one op: its operand names (a trailing "..." means any number) and attributes."""

    op: Op
    operands: tuple[str, ...]
    params: tuple[Param, ...] = ()


_REDUCTION_PARAMS = (
    Param("dims", "ints", "-1"),
    Param("keepdim", "bool", "False"),
    Param("dtype", "dtype", "Null"),
)
_FAMILY_FORMS: dict[Family, tuple[tuple[str, ...], tuple[Param, ...]]] = {
    Family.UNARY: (("x",), ()),
    Family.BINARY: (("a", "b"), ()),
    Family.CAST: (("x",), (Param("dtype", "dtype", "Float"),)),
    Family.REDUCTION: (("x",), _REDUCTION_PARAMS),
}
_OP_FORMS: dict[Op, tuple[tuple[str, ...], tuple[Param, ...]]] = {
    Op.WHERE: (("condition", "a", "b"), ()),
    Op.LERP: (("start", "end", "weight"), ()),
    Op.CLAMP: (("x", "min", "max"), ()),
    Op.VAR: (
        ("x",),
        (Param("dims", "ints", "-1"), Param("correction", "int", "1"), Param("keepdim", "bool", "False")),
    ),
    Op.VAR_MEAN: (
        ("x",),
        (Param("dims", "ints", "-1"), Param("correction", "int", "1"), Param("keepdim", "bool", "False")),
    ),
    Op.BROADCAST_IN_DIM: (("x",), (Param("shape", "ints"), Param("broadcast_dims", "ints"))),
    Op.EXPAND: (("x",), (Param("shape", "ints"),)),
    Op.RESHAPE: (("x",), (Param("new_shape", "ints"),)),
    Op.PERMUTE: (("x",), (Param("dims", "ints"),)),
    Op.SQUEEZE: (("x",), (Param("dims", "ints"),)),
    Op.SLICE: (("x",), (Param("starts", "ints"), Param("ends", "ints"), Param("strides", "ints"))),
    Op.PAD: (("x", "value"), (Param("pad_widths", "ints"),)),
    Op.CAT: (("tensors", "..."), (Param("dim", "int", "0"),)),
    Op.CUMSUM: (("x",), (Param("dim", "int", "-1"),)),
    Op.CUMPROD: (("x",), (Param("dim", "int", "-1"),)),
    Op.CUMMAX: (("x",), (Param("dim", "int", "-1"),)),
    Op.CUMMIN: (("x",), (Param("dim", "int", "-1"),)),
    Op.TRIU: (("x",), (Param("diagonal", "int", "0"),)),
}


def op_forms() -> list[OpForm]:
    """Every op the builder offers, in the order of the Op enum."""
    forms = []
    for op in Op:
        spec = _OP_FORMS.get(op) or _FAMILY_FORMS.get(op.family)
        if spec is not None:
            forms.append(OpForm(op, *spec))
    return forms


def parse_param(param: Param, text: str) -> Any:
    """An attribute typed into the builder. Raises DefinitionError naming the attribute."""
    text = text.strip()
    try:
        if param.kind == "ints":
            parts = [p for p in text.strip("[]() ").replace(" ", "").split(",") if p]
            return tuple(int(p) for p in parts)
        if param.kind == "int":
            return int(text)
        if param.kind == "float":
            return float(text)
        if param.kind == "bool":
            if text.lower() not in ("true", "false"):
                raise ValueError(text)
            return text.lower() == "true"
        if param.kind == "dtype":
            return DataType[text.removeprefix("DataType.")]
    except (ValueError, KeyError):
        pass
    else:
        raise AssertionError(f"unknown parameter kind {param.kind}")
    examples = {"ints": "0, 2, 1", "int": "-1", "float": "0.5", "bool": "True or False", "dtype": "Float"}
    raise DefinitionError(f"{param.name}={text!r} is not valid: write it like {examples[param.kind]}")


class _Replay:
    """A FusionBuilder holding a copy of a fusion, and the old names of the values it has made. With `cut`,
    the exprs read that value through a `segment_set` of it, made right after the value."""

    def __init__(self, fusion: Fusion, cut: str | None = None):
        self.fusion = fusion
        self.builder = FusionBuilder()
        self.values: dict[str, Value] = {}
        self.read_as: dict[str, Value] = {}  # what the exprs read in place of a value
        by_name = fusion.value_map
        for name in fusion.inputs:
            old = by_name[name]
            if old.is_tensor:
                self.values[name] = self.builder.define_tensor(old.shape, old.dtype, old.strides)
            else:
                self.values[name] = self.builder.define_scalar(old.dtype)
        for expr in fusion.exprs:
            operands = [self.read_as.get(n) or self.operand(n) for n in expr.inputs]
            outs = self.builder.add(expr.op, operands, expr.attr_dict, expr.loc)
            self.values.update(zip(expr.outputs, outs, strict=True))
            if cut in expr.outputs:
                (self.read_as[cut],) = self.builder.add(Op.SEGMENT_SET, [self.values[cut]], {}, expr.loc)

    def operand(self, name: str) -> Value:
        if name not in self.values:
            old = self.fusion.value_map.get(name)
            if old is None or old.const is None:
                known = ", ".join(v.name for v in self.fusion.values if v.is_tensor)
                raise DefinitionError(
                    f"{name} is not a value of this fusion; pick one of {known}, or a number"
                )
            self.values[name] = self.builder.define_scalar(old.dtype, old.const)
        return self.values[name]

    def constant(self, number: float | int | bool) -> Value:
        return self.builder.define_scalar(python_dtype(number), number)

    def build(self, extra_outputs: Sequence[Value] = (), dropped: frozenset[str] = frozenset()) -> Fusion:
        for output in self.fusion.outputs:
            if output.name in dropped:
                continue
            alias = self.values[output.alias_input] if output.alias_input else None
            self.builder.add_output(self.values[output.name], alias, output.stride_order)
        for value in extra_outputs:
            self.builder.add_output(value)
        return self.builder.build()


def _number(text: str) -> float | int | bool | None:
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            continue
    return {"True": True, "False": False}.get(text)


def empty_fusion() -> Fusion:
    return FusionBuilder().build()


def add_input(fusion: Fusion, shape: Sequence[int], dtype: DataType) -> Fusion:
    replay = _Replay(fusion)
    replay.builder.define_tensor(shape, dtype)
    return replay.build()


def add_op(fusion: Fusion, op: Op, operands: Sequence[str], attrs: Mapping[str, Any]) -> Fusion:
    """`fusion` with one more op; operands are value names or numbers (as text).

    The op's results become outputs, and outputs it consumes stop being outputs, so that adding ops
    one after another extends a chain whose end is the output.
    """
    replay = _Replay(fusion)
    values = []
    operands = [text.strip() for text in operands]
    for text in operands:
        number = _number(text)
        values.append(replay.constant(number) if number is not None else replay.operand(text))
    outs = replay.builder.add(op, values, attrs)
    consumed = frozenset(o.name for o in fusion.outputs if o.name in operands and o.alias_input is None)
    return replay.build(outs, dropped=consumed)


def add_output(fusion: Fusion, name: str) -> Fusion:
    replay = _Replay(fusion)
    if name not in replay.values:
        raise DefinitionError(f"{name} is not a value of this fusion")
    return replay.build([replay.values[name]])


@dataclass(frozen=True, slots=True)
class Cut:
    """A fusion cut at a tensor; its values are named afresh in the order they are made."""

    fusion: Fusion
    tensor: str  # the cut tensor, as `fusion` names it
    copy: str  # the `segment_set` of it that its readers read


def cut_at(fusion: Fusion, tensor: str) -> Cut:
    """`fusion` with every reader of `tensor` reading `segment_set(tensor)` instead: the segmenter starts
    a new kernel at the readers, so `tensor` goes through global memory (nvFuser's hint)."""
    value = fusion.value_map.get(tensor)
    computed = {name for e in fusion.exprs for name in e.outputs}
    if value is None or not value.is_tensor or tensor not in computed:
        known = ", ".join(n for n in tensor_names(fusion) if n in computed)
        raise DefinitionError(f"{tensor} is not a tensor an op of this fusion computes; pick one of {known}")
    if not any(tensor in e.inputs for e in fusion.exprs):
        raise DefinitionError(f"no op reads {tensor}: there is nothing to cut; pick a tensor that ops read")
    replay = _Replay(fusion, cut=tensor)
    return Cut(replay.build(), replay.values[tensor].name, replay.read_as[tensor].name)


def tensor_names(fusion: Fusion) -> list[str]:
    return [v.name for v in fusion.values if v.is_tensor]
