"""The nvFuser names a definition script sees: FusionDefinition, DataType, `fd` and `fd.ops`.

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
from hfuse.loader.inputs import InputTensor, TorchDtype
from hfuse.loader.interpreter import MISSING, CallSite, Interpreted, describe

FD_METHODS = frozenset(
    {"define_tensor", "define_scalar", "define_constant", "define_vector", "from_pytorch", "add_output"}
)


class DataTypeNamespace(Interpreted):
    label = "DataType"

    def attribute(self, name: str) -> Any:
        return DataType.__members__.get(name, MISSING)


class FusionDefinitionClass(Interpreted):
    label = "FusionDefinition"


class LegacyFusionClass(Interpreted):
    """`Fusion` of the torch._C._nvfuser era: `fs = Fusion()` then `with FusionDefinition(fs) as fd:`."""

    label = "Fusion"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if args or kwargs:
            raise site.error("Fusion() takes no arguments")
        return LegacyFusion()


class LegacyFusion(Interpreted):
    label = "a Fusion"


class DefinitionModule(Interpreted):
    def __init__(self, label: str):
        self.label = label

    def attribute(self, name: str) -> Any:
        return {"FusionDefinition": FusionDefinitionClass(), "DataType": DataTypeNamespace()}.get(
            name, MISSING
        )


class Fd(Interpreted):
    """The script's FusionDefinition object. `before_call(node)` runs before each recorded call."""

    label = "fd"

    def __init__(self, fd: FusionDefinition, before_call: Callable[[ast.AST], None]):
        self.fd = fd
        self.before_call = before_call
        self.fields: dict[str, Any] = {}  # `self.t0 = ...` in a subclass's definition(self)

    def attribute(self, name: str) -> Any:
        if name == "ops":
            return FdOps(self)
        if name in FD_METHODS:
            return FdCall(self, f"fd.{name}", getattr(self.fd, name))
        return self.fields.get(name, MISSING)

    def is_field_name(self, name: str) -> bool:
        """Whether `fd.<name> = value` may keep a value: any name but ops and the fd methods."""
        return name != "ops" and name not in FD_METHODS and not name.startswith("__")


class FdOps(Interpreted):
    label = "fd.ops"

    def __init__(self, owner: Fd):
        self.owner = owner

    def attribute(self, name: str) -> Any:
        if name not in op_names():
            return MISSING
        return FdCall(self.owner, f"fd.ops.{name}", getattr(self.owner.fd.ops, name))


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
    if isinstance(value, TorchDtype):
        raise site.error(f"{label} takes nvFuser dtypes: write DataType.X, not {value.label}")
    if isinstance(value, Interpreted):
        raise site.error(f"{describe(value)} cannot be passed to {label}")
    return value
