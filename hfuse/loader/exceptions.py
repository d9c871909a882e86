"""The exceptions a script raises and catches itself: `raise RuntimeError("...")`, a failing `assert`, and
`try: ... except ValueError as e: ... else: ... finally: ...` around them.

Their classes are Python's builtin exception classes named in EXCEPTION_CLASSES: `except RuntimeError`
catches a raised RuntimeError and its subclasses, as in Python. Only what the script raises itself is
caught: an error hfuse finds in the definition, a construct it does not read or a limit passed always
ends the load, with its line; so does a script's exception no handler catches (a DefinitionError).
"""

from __future__ import annotations

from typing import Any

from hfuse.errors import DefinitionError, Loc
from hfuse.loader.values import CallSite, Interpreted, TypeValue, show

EXCEPTION_CLASSES: dict[str, type[BaseException]] = {
    kind.__name__: kind
    for kind in (
        BaseException,
        Exception,
        ArithmeticError,
        AssertionError,
        AttributeError,
        ImportError,
        IndexError,
        KeyError,
        LookupError,
        ModuleNotFoundError,
        NotImplementedError,
        OverflowError,
        RuntimeError,
        TypeError,
        ValueError,
        ZeroDivisionError,
    )
}
_SHOWN_MESSAGE_CHARS = 200


class ScriptException(Interpreted):
    """An exception the script made, `RuntimeError("no kernel")`: its class and arguments."""

    def __init__(self, kind: type[BaseException], args: tuple[Any, ...]):
        self.kind = kind
        self.args = args
        self.label = f"a {kind.__name__}"

    def attribute(self, name: str) -> Any:
        return self.args if name == "args" else super().attribute(name)

    def message(self) -> str:
        """What `str(e)` gives: its one argument, or the tuple of them."""
        if not self.args:
            return ""
        return show(self.args[0] if len(self.args) == 1 else self.args, _SHOWN_MESSAGE_CHARS)

    def shown(self) -> str:
        return self.message()


class ExceptionClass(TypeValue):
    """`RuntimeError`: called, it makes a ScriptException; in `except` and `isinstance`, a class."""

    def __init__(self, kind: type[BaseException]):
        self.kind = kind
        self.label = f"the exception class {kind.__name__}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> ScriptException:
        if kwargs:
            raise site.error(f"{self.kind.__name__}() takes its message, not keywords")
        return ScriptException(self.kind, tuple(args))

    def holds(self, value: Any) -> bool:
        return isinstance(value, ScriptException) and issubclass(value.kind, self.kind)

    def shown(self) -> str:
        return f"<class '{self.kind.__name__}'>"


class ScriptRaised(Exception):
    """A script's exception on its way to a handler; where none catches it, the load ends with `error`."""

    def __init__(self, exception: ScriptException, reason: str, loc: Loc):
        super().__init__(reason)
        self.exception = exception
        self.error = DefinitionError(reason, loc=loc)


def exception_classes() -> dict[str, ExceptionClass]:
    """The builtin names of the exception classes."""
    return {name: ExceptionClass(kind) for name, kind in EXCEPTION_CLASSES.items()}
