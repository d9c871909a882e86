"""The values a FusionDefinition hands back: Tensor, Scalar and Vector handles.

Handles only name a recorded value; Python operators on them record ops like `fd.ops.*` does.
`/` records DIV, as nvFuser does. Reflected operators take Python numbers on the left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hfuse.errors import DefinitionError
from hfuse.frontend.records import Like

if TYPE_CHECKING:
    from hfuse.frontend.definition import FusionDefinition


class Handle:
    __slots__ = ("fd", "name")

    def __init__(self, fd: FusionDefinition, name: str) -> None:
        self.fd = fd
        self.name = name

    def __repr__(self) -> str:
        return self.name

    __hash__ = object.__hash__

    def is_tensor(self) -> bool:
        return isinstance(self, Tensor)

    def dtype(self) -> Like:
        """nvfuser_direct's `TensorView.dtype()`: known once the definition is bound to its inputs, so an
        op given it as its dtype (`fd.ops.cast(y, dtype=x.dtype())`) takes the dtype x has then."""
        return Like(self, "dtype")

    def __bool__(self) -> bool:
        raise DefinitionError(
            f"{self.name} has no truth value while the fusion is being defined; "
            "use fd.ops.where for a data-dependent choice"
        )

    def _binary(self, name: str, other: Any, reflected: bool = False) -> Any:
        method = getattr(self.fd.ops, name)
        return method(other, self) if reflected else method(self, other)

    def __add__(self, other):
        return self._binary("add", other)

    def __radd__(self, other):
        return self._binary("add", other, reflected=True)

    def __sub__(self, other):
        return self._binary("sub", other)

    def __rsub__(self, other):
        return self._binary("sub", other, reflected=True)

    def __mul__(self, other):
        return self._binary("mul", other)

    def __rmul__(self, other):
        return self._binary("mul", other, reflected=True)

    def __truediv__(self, other):
        return self._binary("div", other)

    def __rtruediv__(self, other):
        return self._binary("div", other, reflected=True)

    def __pow__(self, other):
        return self._binary("pow", other)

    def __rpow__(self, other):
        return self._binary("pow", other, reflected=True)

    def __mod__(self, other):
        return self._binary("mod", other)

    def __rmod__(self, other):
        return self._binary("mod", other, reflected=True)

    def __and__(self, other):
        return self._binary("bitwise_and", other)

    def __rand__(self, other):
        return self._binary("bitwise_and", other, reflected=True)

    def __or__(self, other):
        return self._binary("bitwise_or", other)

    def __ror__(self, other):
        return self._binary("bitwise_or", other, reflected=True)

    def __xor__(self, other):
        return self._binary("bitwise_xor", other)

    def __rxor__(self, other):
        return self._binary("bitwise_xor", other, reflected=True)

    def __lshift__(self, other):
        return self._binary("bitwise_left_shift", other)

    def __rlshift__(self, other):
        return self._binary("bitwise_left_shift", other, reflected=True)

    def __rshift__(self, other):
        return self._binary("bitwise_right_shift", other)

    def __rrshift__(self, other):
        return self._binary("bitwise_right_shift", other, reflected=True)

    def __eq__(self, other):  # type: ignore[override]
        return self._binary("eq", other)

    def __ne__(self, other):  # type: ignore[override]
        return self._binary("ne", other)

    def __lt__(self, other):
        return self._binary("lt", other)

    def __le__(self, other):
        return self._binary("le", other)

    def __gt__(self, other):
        return self._binary("gt", other)

    def __ge__(self, other):
        return self._binary("ge", other)

    def __neg__(self):
        return self.fd.ops.neg(self)

    def __abs__(self):
        return self.fd.ops.abs(self)


class Tensor(Handle):
    __slots__ = ("_ndim",)

    def __init__(self, fd: FusionDefinition, name: str, ndim: int) -> None:
        super().__init__(fd, name)
        self._ndim = ndim

    @property
    def ndim(self) -> int:
        return self._ndim

    def shape(self) -> Vector:
        return self.fd.ops.shape(self)

    def size(self, dim: int) -> Scalar:
        return self.fd.ops.size(self, dim)


class Scalar(Handle):
    __slots__ = ()


class Vector:
    """A list of extents (ints or Scalars), as `define_vector` and `shape(x)` give."""

    __slots__ = ("fd", "name", "entries")

    def __init__(self, fd: FusionDefinition, name: str, entries: tuple[int | Scalar, ...]) -> None:
        self.fd = fd
        self.name = name
        self.entries = entries

    def __repr__(self) -> str:
        return "[" + ", ".join(repr(e) for e in self.entries) + "]"

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return (self[i] for i in range(len(self.entries)))

    def __getitem__(self, index: int) -> Scalar:
        return self.fd.ops.at(self, index)

    @property
    def size(self) -> int:
        return len(self.entries)
