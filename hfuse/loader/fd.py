"""The nvFuser names a definition script sees: FusionDefinition, DataType, `fd`, `fd.ops`, subclasses.

`fd.<method>` and `fd.ops.<op>` reach the frontend only for names in FD_METHODS and in the
public methods of the frontend's `Ops` class; every argument is checked to be a plain value
or a fusion value first. Calls report their place to the frontend (`fd._loc`) so that errors
found while defining or building point at the script line.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, HfuseError
from hfuse.frontend import FusionDefinition
from hfuse.frontend.handles import Handle, Scalar, Tensor, Vector
from hfuse.loader.functions import BoundMethod, UserFunction
from hfuse.loader.tensors import InputTensor, TorchDtype, refuse_uncomputed_dtypes
from hfuse.loader.values import MISSING, CallSite, FusionDtype, Interpreted, TypeValue, describe

FD_METHODS = frozenset(
    {
        "define_tensor",
        "define_scalar",
        "define_constant",
        "define_vector",
        "from_pytorch",
        "add_output",
        "add_input",
    }
)
RUN_METHODS = frozenset({"execute", "validate"})  # what a script calls to run its definition


class DataTypeNamespace(Interpreted):
    label = "DataType"

    def attribute(self, name: str) -> Any:
        return DataType.__members__.get(name, MISSING)

    def attribute_names(self) -> frozenset[str]:
        return frozenset(DataType.__members__)


class DefinitionModule(Interpreted):
    """`nvfuser`, `nvfuser_direct` or `hfuse` imported as a module."""

    def __init__(self, label: str, names: dict[str, Interpreted]):
        self.label = label
        self.names = names

    def attribute(self, name: str) -> Any:
        return self.names.get(name, MISSING)


class HandleType(TypeValue):
    """nvFuser's `Tensor`, `Scalar` and `Vector` classes (nvfuser_direct's `TensorView` and `Val`, the class
    of every fusion value), for `isinstance(value, Tensor)` and annotations."""

    def __init__(self, handle_class: type):
        self.handle_class = handle_class
        self.label = handle_class.__name__

    def holds(self, value: Any) -> bool:
        return isinstance(value, self.handle_class)


HANDLE_TYPES = {
    name: HandleType(kind)
    for name, kind in (
        ("Tensor", Tensor), ("Scalar", Scalar), ("Vector", Vector), ("TensorView", Tensor), ("Val", Handle)
    )
}  # fmt: skip


class TorchDtypeToDataType(Interpreted):
    """`nvfuser.pytorch_utils.torch_dtype_to_nvfuser_dtype(torch.float16)` is DataType.Half."""

    label = "torch_dtype_to_nvfuser_dtype"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> DataType:
        refuse_uncomputed_dtypes(site, args)
        if kwargs or len(args) != 1 or not isinstance(args[0], TorchDtype):
            raise site.error("torch_dtype_to_nvfuser_dtype takes one torch dtype, such as torch.float16")
        try:
            return DataType.from_torch(args[0].dtype)
        except (KeyError, ValueError):
            raise site.error(f"{args[0].label} has no nvFuser DataType") from None


PYTORCH_UTILS = DefinitionModule("pytorch_utils", {"torch_dtype_to_nvfuser_dtype": TorchDtypeToDataType()})


class FusionDefinitionClass(Interpreted):
    """`FusionDefinition`: calling it makes the script's definition object through `make`."""

    label = "FusionDefinition"

    def __init__(self, make: Callable[[CallSite, list[Any], dict[str, Any]], Fd]):
        self.make = make

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Fd:
        return self.make(site, args, kwargs)


class LegacyFusionClass(Interpreted):
    """What scripts of the torch._C._nvfuser era make a definition for: `fs = Fusion()` (or
    `fm = FusionManager()`, `FusionCache`) then `with FusionDefinition(fs) as fd:`."""

    def __init__(self, label: str):
        self.label = label

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if args or kwargs:
            raise site.error(f"{self.label}() takes no arguments")
        return LegacyFusion(f"a {self.label}")

    def attribute(self, name: str) -> Any:
        if name == "reset":
            return CACHE_RESET
        return LegacyFusionGetter(self) if name == "get" else MISSING


class LegacyFusionGetter(Interpreted):
    """`FusionCache.get()`: the process's one cache object, made here like `FusionCache()`."""

    def __init__(self, owner: LegacyFusionClass):
        self.owner = owner
        self.label = f"{owner.label}.get"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.owner.call(site, args, kwargs)


class CacheReset(Interpreted):
    """`FusionCache.reset()`: empties nvFuser's cache of compiled fusions, which hfuse does not keep."""

    label = "FusionCache.reset"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> None:
        if args or kwargs:
            raise site.error("FusionCache.reset() takes no arguments")


CACHE_RESET = CacheReset()
LEGACY_FUSION_CLASSES = {name: LegacyFusionClass(name) for name in ("Fusion", "FusionManager", "FusionCache")}


class LegacyFusion(Interpreted):
    def __init__(self, label: str):
        self.label = label


class UserClass(Interpreted):
    """`class MyFusion(FusionDefinition)`: its methods (definition(self) among them) and class attributes."""

    def __init__(
        self, node: ast.ClassDef, members: dict[str, Any], make: Callable[[CallSite, UserClass], Fd]
    ):
        self.node = node
        self.members = members
        self.make = make
        self.label = f"the class {node.name}"

    def attribute(self, name: str) -> Any:
        return self.members.get(name, MISSING)

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Fd:
        if args or kwargs:
            raise site.error("a FusionDefinition subclass is made with no arguments: fd = MyFusion()")
        return self.make(site, self)


class Fd(Interpreted):
    """The script's FusionDefinition object. `before_call(node)` runs before each recorded call.

    It records only while its definition runs (`recording`); before and after, a statement that
    uses it is about running the fusion, which the loader does not do.
    """

    label = "fd"

    def __init__(
        self, fd: FusionDefinition, before_call: Callable[[ast.AST], None], user_class: UserClass | None
    ):
        self.fd = fd
        self.before_call = before_call
        self.user_class = user_class
        self.fields: dict[str, Any] = {}  # `self.t0 = ...` in a subclass's definition(self)
        self.recording = False
        self.pending: Callable[[], None] | None = None  # a subclass's definition, recorded at its first run

    def attribute(self, name: str) -> Any:
        if name in ("ops", "Ops"):  # fd.Ops in scripts of 2022
            return FdOps(self)
        if name in FD_METHODS:
            return FdCall(self, f"fd.{name}", getattr(self.fd, name))
        if name in self.fields:
            return self.fields[name]
        member = self.user_class.attribute(name) if self.user_class is not None else MISSING
        return BoundMethod(member, self) if isinstance(member, UserFunction) else member

    def attribute_names(self) -> frozenset[str]:
        return FD_METHODS | {"ops"} | frozenset(self.fields)

    def set_attribute(self, name: str, value: Any) -> bool:
        """`fd.<name> = value` keeps any name but ops and the fd methods."""
        if name in ("ops", "Ops") or name in FD_METHODS or name.startswith("__"):
            return False
        self.fields[name] = value
        return True


class FdOps(Interpreted):
    label = "fd.ops"
    missing_attribute_hint = "fd.ops holds the ops of nvFuser's Python API: check the op's name"

    def __init__(self, owner: Fd):
        self.owner = owner

    def attribute(self, name: str) -> Any:
        if name not in op_names():
            return MISSING
        return FdCall(self.owner, f"fd.ops.{name}", getattr(self.owner.fd.ops, name))

    def attribute_names(self) -> frozenset[str]:
        return op_names()


class FdCall(Interpreted):
    def __init__(self, owner: Fd, label: str, method: Callable[..., Any]):
        self.owner = owner
        self.label = label
        self.method = method

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        takes_tensor = self.label == "fd.from_pytorch"
        args = [frontend_argument(site, self.label, a, takes_tensor) for a in args]
        kwargs = {k: frontend_argument(site, self.label, v, takes_tensor) for k, v in kwargs.items()}
        self.owner.before_call(site.node)
        try:
            return self.method(*args, **kwargs)
        except HfuseError as err:
            raise site.source.placed(err, site.node) from None
        except (TypeError, ValueError) as err:
            raise site.source.placed(DefinitionError(f"{self.label}: {err}"), site.node) from None


class OpMethod(Interpreted):
    """`t.pad(widths)`, `t.real()`, `c0.neg()`: a fusion tensor's or scalar's method named after an op is
    that op of the value."""

    def __init__(self, owner: Fd, value: Tensor | Scalar, name: str):
        self.call_op = FdCall(owner, f"fd.ops.{name}", getattr(owner.fd.ops, name))
        self.value = value
        self.label = f"{value!r}.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.call_op.call(site, [self.value, *args], kwargs)


@functools.cache
def op_names() -> frozenset[str]:
    """The public methods of the frontend's Ops class: the ops a script may call."""
    from hfuse.frontend.ops import Ops

    return frozenset(name for name in dir(Ops) if not name.startswith("_") and callable(getattr(Ops, name)))


def frontend_argument(site: CallSite, label: str, value: Any, takes_tensor: bool) -> Any:
    if isinstance(value, list | tuple):
        return type(value)(frontend_argument(site, label, v, takes_tensor) for v in value)
    if isinstance(value, InputTensor) and takes_tensor:
        # 0-dim CPU tensors are nvFuser's CPU scalars, so the device matters; the rest keep their meta twin.
        if value.on_cpu:
            return torch.empty_strided(value.meta.shape, value.meta.stride(), dtype=value.meta.dtype)
        return value.meta
    if isinstance(value, FusionDtype):
        return value.like
    if isinstance(value, TorchDtype):
        raise site.error(f"{label} takes nvFuser dtypes: write DataType.X, not {value.label}")
    if isinstance(value, Interpreted) or isinstance(value, dict | range):
        raise site.error(f"{describe(value)} cannot be passed to {label}")
    return value
