"""Builds a Fusion one expr at a time, inferring every output's shape and dtype."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from hfuse import settings
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, LimitError, loc_of
from hfuse.infer.common import OutSpec
from hfuse.ir import Expr, Fusion, Kind, Op, Output, Value, contiguous_strides, freeze_attrs
from hfuse.ops import infer
from hfuse.structure import Depths, check_op_inputs
from hfuse.units import format_size


class FusionBuilder:
    def __init__(self) -> None:
        self._values: dict[str, Value] = {}
        self._inputs: list[str] = []
        self._exprs: list[Expr] = []
        self._outputs: list[Output] = []
        self._tensor_count = 0
        self._scalar_count = 0
        self._result_bytes = 0
        self._depths = Depths()

    def _name(self, kind: Kind) -> str:
        if kind is Kind.TENSOR:
            self._tensor_count += 1
            return f"T{self._tensor_count - 1}"
        self._scalar_count += 1
        return f"S{self._scalar_count - 1}"

    def _new(self, kind: Kind, dtype: DataType, shape=(), strides=None, const=None) -> Value:
        shape = tuple(int(s) for s in shape)
        if strides is None:
            strides = contiguous_strides(shape) if kind is Kind.TENSOR else ()
        value = Value(self._name(kind), kind, dtype, shape, tuple(int(s) for s in strides), const)
        self._values[value.name] = value
        return value

    def define_tensor(
        self, shape: Sequence[int], dtype: DataType, strides: Sequence[int] | None = None
    ) -> Value:
        value = self._new(Kind.TENSOR, dtype, shape, strides)
        self._inputs.append(value.name)
        return value

    def define_scalar(self, dtype: DataType, const: Any = None) -> Value:
        """A constant when `const` is given, else a symbolic scalar input."""
        value = self._new(Kind.SCALAR, dtype, const=const)
        if const is None:
            self._inputs.append(value.name)
        return value

    def add(
        self,
        op: Op,
        inputs: Sequence[Value],
        attrs: Mapping[str, Any] | None = None,
        loc: tuple[int, int] | None = None,
    ) -> tuple[Value, ...]:
        check_op_inputs(op, len(inputs), loc)
        try:
            inferred = infer(op, list(inputs), dict(attrs or {}))
        except (DefinitionError, LimitError) as err:
            if err.loc is None and loc is not None:
                raise type(err)(err.reason, loc=loc_of(loc), expr=err.expr) from None
            raise
        self._count_result_bytes(op, inferred.outputs, loc)
        outs = tuple(self._new(s.kind, s.dtype, s.shape, const=s.const) for s in inferred.outputs)
        self._depths.add(op, tuple(v.name for v in inputs), tuple(v.name for v in outs), loc)
        self._exprs.append(
            Expr(
                op,
                tuple(v.name for v in inputs),
                tuple(v.name for v in outs),
                freeze_attrs(inferred.attrs),
                loc,
            )
        )
        return outs

    def _count_result_bytes(self, op: Op, specs: Sequence[OutSpec], loc: tuple[int, int] | None) -> None:
        """Refuses a fusion whose results would take more than HFUSE_MAX_OUTPUT_BYTES, before any runs."""
        tensors = [s for s in specs if s.kind is Kind.TENSOR]
        self._result_bytes += sum(math.prod(s.shape) * s.dtype.itemsize for s in tensors)
        limit = settings.MAX_OUTPUT_BYTES.as_bytes()
        if self._result_bytes > limit:
            raise LimitError(
                f"{op.frontend_name}: the fusion's results take {format_size(self._result_bytes)} up to "
                f"here; the limit is {format_size(limit)} "
                f"(set {settings.MAX_OUTPUT_BYTES.env} to compute more)",
                loc=loc_of(loc),
            )

    def add_output(
        self, value: Value, alias_input: Value | None = None, stride_order: Sequence[int] | None = None
    ) -> None:
        order = tuple(stride_order) if stride_order else None
        self._outputs.append(Output(value.name, alias_input.name if alias_input else None, order))

    def build(self) -> Fusion:
        from hfuse.verify import verify

        fusion = Fusion(
            tuple(self._values.values()), tuple(self._inputs), tuple(self._exprs), tuple(self._outputs)
        )
        verify(fusion)
        return fusion
