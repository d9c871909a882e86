"""Operand checks shared by the `fd.ops` methods: what each argument may be, with errors that
name the call, the argument and what to pass instead."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hfuse.dtypes import DataType
from hfuse.frontend import legacy
from hfuse.frontend.handles import Handle, Scalar, Tensor, Vector
from hfuse.frontend.records import Like
from hfuse.ir import Op

if TYPE_CHECKING:
    from hfuse.frontend.definition import FusionDefinition

NUMBER_TYPES = (bool, int, float, complex)


def describe(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"the Tensor {value.name}"
    if isinstance(value, Scalar):
        return f"the Scalar {value.name}"
    if isinstance(value, Vector):
        return f"the Vector {value!r}"
    return f"{type(value).__name__} {value!r}"


class OperandChecks:
    def __init__(self, fd: FusionDefinition) -> None:
        self._fd = fd

    def _fail(self, where: str, message: str):
        return self._fd._error(f"fd.ops.{where}: {message}")

    def _own(self, handle: Handle, where: str) -> None:
        if handle.fd is not self._fd:
            raise self._fail(where, f"{handle.name} belongs to another FusionDefinition")

    def _tensor(self, x: Any, where: str, role: str = "the operand") -> Tensor:
        if not isinstance(x, Tensor):
            raise self._fail(where, f"{role} must be a Tensor, got {describe(x)}")
        self._own(x, where)
        return x

    def _value(
        self, x: Any, where: str, role: str = "operand", dtype: DataType | None = None
    ) -> Tensor | Scalar:
        """A Tensor or Scalar operand; Python numbers become constants."""
        if isinstance(x, Tensor | Scalar):
            self._own(x, where)
            return x
        if isinstance(x, NUMBER_TYPES):
            return self._fd._constant(x, dtype)
        raise self._fail(where, f"{role} must be a Tensor, a Scalar or a number, got {describe(x)}")

    def _scalar(self, x: Any, where: str, role: str, dtype: DataType | None = None) -> Scalar:
        value = self._value(x, where, role, dtype)
        if isinstance(value, Tensor):
            raise self._fail(where, f"{role} must be a Scalar or a number, got {describe(x)}")
        return value

    def _extents(self, value: Any, where: str, name: str) -> tuple[int | Scalar, ...]:
        """A shape-like argument: a list or tuple of whole numbers and Scalars, or a Vector."""
        if isinstance(value, Vector):
            self._own(value, where)
            entries = value.entries
        elif isinstance(value, list | tuple):
            entries = tuple(value)
        else:
            raise self._fail(
                where, f"{name} must be a list of whole numbers or Scalars, got {describe(value)}"
            )
        for entry in entries:
            if isinstance(entry, Scalar):
                self._own(entry, where)
            elif not legacy.is_int(entry):
                raise self._fail(where, f"{name} holds {describe(entry)}; use whole numbers or Scalars")
        return entries

    def _ints(self, value: Any, where: str, name: str) -> tuple[int, ...]:
        if legacy.is_int(value):
            return (value,)
        if not legacy.is_int_list(value):
            raise self._fail(where, f"{name} must be a list of whole numbers, got {describe(value)}")
        return tuple(value)

    def _int(self, value: Any, where: str, name: str) -> int | Scalar:
        if isinstance(value, Scalar):
            self._own(value, where)
            return value
        if not legacy.is_int(value):
            raise self._fail(where, f"{name} must be a whole number or a Scalar, got {describe(value)}")
        return value

    def _dim(self, value: Any, where: str) -> int:
        if not legacy.is_int(value):
            raise self._fail(where, f"dim must be a whole number, got {describe(value)}")
        return value

    def _bool(self, value: Any, where: str, name: str) -> bool:
        if isinstance(value, bool) or (legacy.is_int(value) and value in (0, 1)):
            return bool(value)
        raise self._fail(where, f"{name} must be True or False, got {describe(value)}")

    def _bools(self, value: Any, where: str, name: str) -> tuple[bool, ...]:
        if not isinstance(value, list | tuple):
            raise self._fail(where, f"{name} must be a list of bools, got {describe(value)}")
        return tuple(self._bool(v, where, name) for v in value)

    def _dtype(self, value: Any, where: str, name: str = "dtype") -> DataType | Like:
        """A DataType, or a tensor's `.dtype()`, resolved when the definition is bound."""
        if isinstance(value, Like) and value.attribute == "dtype":
            return value
        if not isinstance(value, DataType):
            raise self._fail(where, f"{name} must be a DataType, got {describe(value)}")
        return value

    def _bind(self, where: str, template, args, kwargs, renames=None) -> dict[str, Any]:
        return legacy.bind_call(f"fd.ops.{where}", template, args, kwargs, renames, self._fd._loc)

    def _call(self, op: Op, inputs, attrs: dict[str, Any], ranks: list[int | None]):
        outputs = self._fd._call(op, tuple(inputs), attrs, ranks)
        return outputs[0] if len(outputs) == 1 else outputs
