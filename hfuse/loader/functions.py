"""Functions a script defines or builds: `def` functions (with closures), bound methods, `functools.partial`.

A call binds its arguments as Python does (positional, keyword, defaults, `*args`, `**kwargs`,
keyword-only and positional-only parameters) and runs the body through the interpreter, which
bounds how deep calls nest.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from hfuse.loader.values import MISSING, CallSite, Interpreted, describe

if TYPE_CHECKING:
    from hfuse.loader.interpreter import Scope
    from hfuse.loader.statements import Interpreter


class UserFunction(Interpreted):
    """A `def` of the script: its node, the scope it was defined in and its evaluated defaults."""

    def __init__(
        self,
        interpreter: Interpreter,
        node: ast.FunctionDef,
        closure: Scope,
        defaults: list[Any],
        keyword_defaults: list[Any],
    ):
        self.interpreter = interpreter
        self.node = node
        self.name = node.name
        self.closure = closure
        self.defaults = defaults
        self.keyword_defaults = keyword_defaults  # MISSING where a keyword-only parameter has none
        self.label = f"the function {node.name}"
        params = node.args
        self.positional = [p.arg for p in (*params.posonlyargs, *params.args)]
        self.plain = not (params.vararg or params.kwarg or params.kwonlyargs)  # positional parameters only

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.interpreter.call_function(self, site, args, kwargs)

    def bind_arguments(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        if self.plain and not kwargs and len(args) == len(self.positional):
            return dict(zip(self.positional, args, strict=True))
        params = self.node.args
        positional = self.positional
        names: dict[str, Any] = {}
        if len(args) > len(positional) and params.vararg is None:
            raise site.error(
                f"{self.name}() takes {len(positional)} positional arguments but {len(args)} were given"
            )
        names.update(zip(positional, args, strict=False))
        if params.vararg is not None:
            names[params.vararg.arg] = tuple(args[len(positional) :])
        by_keyword = set(positional[len(params.posonlyargs) :]) | {p.arg for p in params.kwonlyargs}
        extra: dict[str, Any] = {}
        for key, value in kwargs.items():
            if key in by_keyword:
                if key in names:
                    raise site.error(f"{self.name}() got two values for the argument {key}")
                names[key] = value
            elif params.kwarg is not None:
                extra[key] = value
            else:
                raise site.error(f"{self.name}() has no parameter {key}")
        first_default = len(positional) - len(self.defaults)
        for position, param in enumerate(positional):
            if param not in names:
                if position < first_default:
                    raise site.error(f"{self.name}() is missing the argument {param}")
                names[param] = self.defaults[position - first_default]
        for param, default in zip(params.kwonlyargs, self.keyword_defaults, strict=True):
            if param.arg not in names:
                if default is MISSING:
                    raise site.error(f"{self.name}() is missing the keyword argument {param.arg}")
                names[param.arg] = default
        if params.kwarg is not None:
            names[params.kwarg.arg] = extra
        return names

    def shown(self) -> str:
        return f"<function {self.name}>"


class BoundMethod(Interpreted):
    """`self.helper` of a FusionDefinition subclass: the method with `self` as its first argument."""

    def __init__(self, function: UserFunction, owner: Any):
        self.function = function
        self.owner = owner
        self.label = f"the method {function.name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.function.call(site, [self.owner, *args], kwargs)


class Partial(Interpreted):
    """`functools.partial(f, *args, **kwargs)`."""

    def __init__(self, function: Interpreted, args: list[Any], kwargs: dict[str, Any]):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.label = f"functools.partial of {function.label}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.function.call(site, [*self.args, *args], {**self.kwargs, **kwargs})


def make_partial(site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Partial:
    if not args or not isinstance(args[0], Interpreted):
        first = describe(args[0]) if args else "nothing"
        raise site.error(f"functools.partial takes a function first, not {first}")
    return Partial(args[0], list(args[1:]), dict(kwargs))
