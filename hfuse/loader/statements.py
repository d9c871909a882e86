"""Runs the statements of a script's Python subset: assignments, if / for / while, functions, assert,
raise and try (`exceptions` says what a handler catches).

`Interpreter` adds statements to the expression `Evaluator`. Each statement takes a step of the
budget, loops register themselves so that a budget running out points at the loop, and calls
open and close a level of the call-depth limit. Statements about the fusion definition itself
(imports, `with FusionDefinition()`, subclasses) belong to the script reader, which subclasses this.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, ClassVar

from hfuse.loader.budget import Budget
from hfuse.loader.exceptions import ExceptionClass, ScriptException, ScriptRaised
from hfuse.loader.functions import UserFunction
from hfuse.loader.interpreter import Evaluator, Scope
from hfuse.loader.operators import BINARY
from hfuse.loader.python_builtins import container_method
from hfuse.loader.source import SUPPORTED, Source, is_docstring
from hfuse.loader.values import MISSING, CallSite, describe, show

MAX_PRINTED_CHARS = 100_000  # what print() keeps of a script's output; the rest is cut

_UNSUPPORTED_STATEMENTS = {
    ast.AsyncFor: "async for loops",
    ast.TryStar: "except* blocks",
    ast.Delete: "del statements",
    ast.Global: "global statements",
    ast.Nonlocal: "nonlocal statements",
    ast.Import: "imports inside a definition",
    ast.ImportFrom: "imports inside a definition",
    ast.AsyncFunctionDef: "async functions",
    ast.ClassDef: "nested classes",
    ast.With: "nested with blocks",
    ast.AsyncWith: "async with blocks",
}


class _Return(Exception):
    def __init__(self, node: ast.Return, value: Any):
        self.node = node
        self.value = value


class _LoopExit(Exception):
    """`break` or `continue`, raised to the loop that runs it."""

    def __init__(self, node: ast.stmt):
        self.node = node


class _Break(_LoopExit):
    pass


class _Continue(_LoopExit):
    pass


class Interpreter(Evaluator):
    """Runs statements in a scope; keeps what the script prints."""

    _STATEMENTS: ClassVar[dict[type, Callable[..., None]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._STATEMENTS = _statement_table(cls)

    def __init__(self, source: Source, budget: Budget, before_handle_op: Callable[[ast.AST], None]):
        super().__init__(source, budget, before_handle_op)
        self.printed: list[str] = []
        self.printed_room = MAX_PRINTED_CHARS
        self.current: ast.AST = ast.Pass(lineno=1, col_offset=0)  # the statement being run
        # Set by a reader whose scripts hold statements to pass over: whether it took this one instead.
        self.skips: Callable[[ast.stmt, Scope], bool] | None = None
        self.handling: list[ScriptRaised] = []  # the exceptions whose except blocks are running
        self.marked_test: ast.FunctionDef | None = None  # a def whose decorators the reader reads itself

    def run_block(self, body: list[ast.stmt], scope: Scope) -> None:
        for statement in body:
            self.run_statement(statement, scope)

    def run_statement(self, statement: ast.stmt, scope: Scope) -> None:
        budget = self.budget
        budget.steps += 1
        if budget.steps > budget.max_steps:
            raise budget.exhausted(statement)
        self.current = statement
        if self.skips is not None and self.skips(statement, scope):
            return
        run = self._STATEMENTS.get(type(statement))
        if run is None:
            raise self.unsupported(statement)
        run(self, statement, scope)

    def unsupported(self, statement: ast.stmt) -> Exception:
        what = _UNSUPPORTED_STATEMENTS.get(type(statement), f"{type(statement).__name__} statements")
        return self.error(statement, f"{what} are not part of a fusion definition; {SUPPORTED}")

    def attribute_of(self, base: Any, name: str) -> Any:
        found = super().attribute_of(base, name)
        return container_method(self, base, name) if found is MISSING else found

    def write(self, text: str) -> None:
        """Keeps printed text, up to MAX_PRINTED_CHARS."""
        if self.printed_room <= 0:
            return
        self.printed.append(text[: self.printed_room])
        self.printed_room -= len(text)
        if self.printed_room <= 0:
            self.printed.append(f"\n... (the output is cut at {MAX_PRINTED_CHARS} characters)\n")

    def shown(self, value: Any, quoted: bool = False, room: int | None = None) -> str:
        """What print writes for a value, cut a little past the room left for printed text."""
        return show(value, max(self.printed_room if room is None else room, 0) + 1, quoted)

    # calls
    def call_function(
        self, function: UserFunction, site: CallSite, args: list[Any], kwargs: dict[str, Any]
    ) -> Any:
        names = function.bind_arguments(site, args, kwargs)
        self.budget.enter_call(site.node)
        try:
            self.run_block(function.node.body, Scope(names, function.closure))
        except _Return as signal:
            return signal.value
        except _LoopExit as signal:
            raise self.stray(signal) from None
        finally:
            self.budget.leave_call()
        return None

    def stray(self, signal: _LoopExit) -> Exception:
        word = "break" if isinstance(signal, _Break) else "continue"
        return self.error(signal.node, f"{word} is written outside a loop")

    def function_of(self, node: ast.FunctionDef, scope: Scope) -> UserFunction:
        """The function a `def` makes: decorators are refused (but a pasted test's marks, read by the script
        reader), defaults are evaluated now, as in Python."""
        if node.decorator_list and node is not self.marked_test:
            raise self.error(
                node.decorator_list[0],
                "decorators are not part of a fusion definition; a pasted test may carry pytest's marks, "
                'each parameter but its test case given by @pytest.mark.parametrize("name", [values])',
            )
        defaults = [self.value_of(default, scope) for default in node.args.defaults]
        keyword_defaults = [
            MISSING if default is None else self.value_of(default, scope) for default in node.args.kw_defaults
        ]
        return UserFunction(self, node, scope, defaults, keyword_defaults)

    # statements
    def _run_Expr(self, statement: ast.Expr, scope: Scope) -> None:
        if not is_docstring(statement):
            self.value_of(statement.value, scope)

    def _run_Pass(self, statement: ast.Pass, scope: Scope) -> None:
        return

    def _run_Assign(self, statement: ast.Assign, scope: Scope) -> None:
        value = self.value_of(statement.value, scope)
        for target in statement.targets:
            self.bind(target, value, scope)

    def _run_AnnAssign(self, statement: ast.AnnAssign, scope: Scope) -> None:
        if statement.value is not None:
            self.bind(statement.target, self.value_of(statement.value, scope), scope)

    def _run_AugAssign(self, statement: ast.AugAssign, scope: Scope) -> None:
        symbol, function = self._operator(statement, statement.op, BINARY)
        target = statement.target
        if isinstance(target, ast.Subscript):
            container = self.value_of(target.value, scope)
            index = self.index_of(target.slice, scope)
            current = self.item_of(target, container, index)
            updated = self.apply(statement, symbol, function, current, self.value_of(statement.value, scope))
            self._set_item(target, container, index, updated)
            return
        current = self.value_of(target, scope)  # a name or self.NAME, read before it is written
        self.bind(
            target,
            self.apply(statement, symbol, function, current, self.value_of(statement.value, scope)),
            scope,
        )

    def _run_If(self, statement: ast.If, scope: Scope) -> None:
        taken = self.truth(statement.test, self.value_of(statement.test, scope))
        self.run_block(statement.body if taken else statement.orelse, scope)

    def _run_For(self, statement: ast.For, scope: Scope) -> None:
        iterable = self.value_of(statement.iter, scope)
        loops = self.budget.loops
        loops.append(statement)
        try:
            for item in self.iterate(statement.iter, iterable):
                self.bind(statement.target, item, scope)
                try:
                    self.run_block(statement.body, scope)
                except _Break:
                    break
                except _Continue:
                    continue
            else:
                self.run_block(statement.orelse, scope)
        finally:
            loops.pop()

    def _run_While(self, statement: ast.While, scope: Scope) -> None:
        loops = self.budget.loops
        loops.append(statement)
        try:
            while self.truth(statement.test, self.value_of(statement.test, scope)):
                try:
                    self.run_block(statement.body, scope)
                except _Break:
                    break
                except _Continue:
                    continue
            else:
                self.run_block(statement.orelse, scope)
        finally:
            loops.pop()

    def _run_Break(self, statement: ast.Break, scope: Scope) -> None:
        raise _Break(statement)

    def _run_Continue(self, statement: ast.Continue, scope: Scope) -> None:
        raise _Continue(statement)

    def _run_Return(self, statement: ast.Return, scope: Scope) -> None:
        raise _Return(statement, None if statement.value is None else self.value_of(statement.value, scope))

    def _run_FunctionDef(self, statement: ast.FunctionDef, scope: Scope) -> None:
        scope.names[statement.name] = self.function_of(statement, scope)

    def _run_Assert(self, statement: ast.Assert, scope: Scope) -> None:
        if self.truth(statement.test, self.value_of(statement.test, scope)):
            return
        message = () if statement.msg is None else (self.value_of(statement.msg, scope),)
        said = f": {self.shown(message[0])}" if message else ""
        raise ScriptRaised(
            ScriptException(AssertionError, message),
            f"the script's assert fails{said}; the script checks something that does not hold here",
            self.source.loc(statement),
        )

    def _run_Raise(self, statement: ast.Raise, scope: Scope) -> None:
        if statement.exc is None:
            if not self.handling:
                raise self.error(
                    statement, "raise without an exception re-raises the one an except block handles"
                )
            raise self.handling[-1]
        exception = self.value_of(statement.exc, scope)
        if isinstance(exception, ExceptionClass):
            exception = exception.call(self.site(statement), [], {})
        if not isinstance(exception, ScriptException):
            raise self.error(
                statement.exc,
                f"raise takes an exception, such as RuntimeError('...'), not {describe(exception)}",
            )
        said = exception.message()
        raise ScriptRaised(
            exception,
            f"the script raises {exception.kind.__name__}{': ' if said else ''}{said}; the script checks "
            "something that does not hold here",
            self.source.loc(statement),
        )

    def _run_Try(self, statement: ast.Try, scope: Scope) -> None:
        """As in Python, `finally` runs however the block is left, but for an error of hfuse's own: that
        ends the load."""
        try:
            try:
                self.run_block(statement.body, scope)
            except ScriptRaised as raised:
                handler = self._handler(statement, raised, scope)
                if handler is None:
                    raise
                self._handle(handler, raised, scope)
            else:
                self.run_block(statement.orelse, scope)
        except (ScriptRaised, _Return, _LoopExit):
            self.run_block(statement.finalbody, scope)
            raise
        self.run_block(statement.finalbody, scope)

    def _handler(self, statement: ast.Try, raised: ScriptRaised, scope: Scope) -> ast.ExceptHandler | None:
        """The first except block that catches `raised`."""
        for handler in statement.handlers:
            if handler.type is None:
                return handler
            caught = self.value_of(handler.type, scope)
            classes = caught if isinstance(caught, tuple) else (caught,)
            if not all(isinstance(c, ExceptionClass) for c in classes):
                raise self.error(
                    handler.type,
                    f"except takes exception classes (RuntimeError, ValueError, ...), not {describe(caught)}",
                )
            if any(c.holds(raised.exception) for c in classes):
                return handler
        return None

    def _handle(self, handler: ast.ExceptHandler, raised: ScriptRaised, scope: Scope) -> None:
        """Runs an except block; as in Python, its `as` name is unbound when it ends."""
        if handler.name is not None:
            scope.names[handler.name] = raised.exception
        self.handling.append(raised)
        try:
            self.run_block(handler.body, scope)
        finally:
            self.handling.pop()
            if handler.name is not None:
                scope.names.pop(handler.name, None)


def _statement_table(cls: type) -> dict[type, Callable[..., None]]:
    return {
        getattr(ast, name.removeprefix("_run_")): getattr(cls, name)
        for name in dir(cls)
        if name.startswith("_run_") and hasattr(ast, name.removeprefix("_run_"))
    }


Interpreter._STATEMENTS = _statement_table(Interpreter)
