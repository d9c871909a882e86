"""Evaluates the expressions of a fusion-definition script from its AST, without running any of it.

Values are Python numbers, strings, None, lists and tuples of values, `DataType` members,
fusion values returned by the frontend (tensors and scalars, called handles here) and
`Interpreted` objects: names like `torch`, `fd` or `DataType` whose attributes and calls the
loader implements itself from explicit tables. Nothing is looked up by a name the script
chooses except in those tables, and no attribute starting with `_` is ever read.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hfuse.dtypes import DataType
from hfuse.errors import HfuseError, LimitError, ParseError
from hfuse.loader.limits import int_fits, power_fits, shift_fits, too_big_message
from hfuse.loader.source import SUPPORTED, Source

NUMBER_TYPES = (bool, int, float, complex)
HANDLE_PROPERTIES = frozenset({"ndim"})  # read-only facts of fusion values that definitions use
MISSING = object()

_UNSUPPORTED_EXPRESSIONS = {
    ast.Lambda: "lambda expressions",
    ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.JoinedStr: "f-strings",
    ast.FormattedValue: "f-strings",
    ast.NamedExpr: "assignment expressions (:=)",
    ast.IfExp: "conditional expressions",
    ast.BoolOp: "`and` / `or` expressions",
    ast.Await: "await expressions",
    ast.Yield: "yield expressions",
    ast.YieldFrom: "yield expressions",
    ast.Dict: "dict literals",
    ast.Set: "set literals",
    ast.Starred: "* unpacking",
}

_BINARY = {
    ast.Add: ("+", operator.add),
    ast.Sub: ("-", operator.sub),
    ast.Mult: ("*", operator.mul),
    ast.Div: ("/", operator.truediv),
    ast.FloorDiv: ("//", operator.floordiv),
    ast.Mod: ("%", operator.mod),
    ast.Pow: ("**", operator.pow),
    ast.LShift: ("<<", operator.lshift),
    ast.RShift: (">>", operator.rshift),
    ast.BitAnd: ("&", operator.and_),
    ast.BitOr: ("|", operator.or_),
    ast.BitXor: ("^", operator.xor),
}
_UNARY = {
    ast.USub: ("-", operator.neg),
    ast.UAdd: ("+", operator.pos),
    ast.Invert: ("~", operator.invert),
}
_COMPARE = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
}


@dataclass(frozen=True, slots=True)
class CallSite:
    """Where an interpreted call happens, to raise located errors from it."""

    source: Source
    node: ast.AST

    def error(self, message: str) -> ParseError:
        return self.source.parse_error(self.node, message)

    def limit(self, message: str) -> LimitError:
        return self.source.limit_error(self.node, message)


class Interpreted:
    """A name the script may use whose attributes and calls the loader implements itself."""

    label = "this value"

    def attribute(self, name: str) -> Any:
        return MISSING

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        raise site.error(f"{self.label} cannot be called; {SUPPORTED}")


class Builtin(Interpreted):
    """One of the few Python builtins a definition may call: float, int, complex, abs, len."""

    def __init__(self, name: str):
        self.label = name


BUILTINS: dict[str, Callable[..., Any]] = {
    "float": float,
    "int": int,
    "abs": abs,
    "len": len,
    "complex": complex,
}


def builtin_names() -> dict[str, Builtin]:
    return {name: Builtin(name) for name in BUILTINS}


def is_number(value: Any) -> bool:
    return isinstance(value, NUMBER_TYPES)


def is_handle(value: Any) -> bool:
    """A fusion value returned by the frontend (everything else the loader makes is one of these types)."""
    plain = (*NUMBER_TYPES, str, list, tuple, Interpreted, DataType, type(None))
    return not isinstance(value, plain)


def describe(value: Any) -> str:
    if isinstance(value, Interpreted):
        return value.label
    if is_handle(value):
        return "a fusion value"
    if is_number(value) or value is None or isinstance(value, DataType):
        return repr(value)
    return {str: "a string", list: "a list", tuple: "a tuple"}.get(type(value), type(value).__name__)


def checked_int(site: CallSite, value: Any) -> Any:
    if isinstance(value, int) and not int_fits(value):
        raise site.limit(too_big_message(f"the integer {_short(value)}"))
    return value


def _short(value: int) -> str:
    if value.bit_length() > 200:
        return f"with {value.bit_length()} bits"
    return str(value)


class Evaluator:
    """Evaluates expression nodes over a table of names.

    `before_handle_op(node)` runs before an operator on fusion values reaches the frontend,
    so the loader can count ops and tell the frontend where the op is written.
    """

    def __init__(
        self,
        source: Source,
        names: dict[str, Any],
        before_handle_op: Callable[[ast.AST], None] = lambda node: None,
    ):
        self.source = source
        self.names = names
        self.before_handle_op = before_handle_op

    def value_of(self, node: ast.AST) -> Any:
        method = getattr(self, f"_eval_{type(node).__name__}", None)
        if method is not None:
            return method(node)
        what = _UNSUPPORTED_EXPRESSIONS.get(type(node), f"{type(node).__name__} expressions")
        raise self.source.parse_error(node, f"{what} are not part of a fusion definition; {SUPPORTED}")

    def site(self, node: ast.AST) -> CallSite:
        return CallSite(self.source, node)

    def _eval_Constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, bytes) or node.value is Ellipsis:
            raise self.source.parse_error(
                node, f"the literal {node.value!r:.40} is not part of a fusion definition"
            )
        return checked_int(self.site(node), node.value)

    def _eval_Name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return self.names[node.id]
        raise self.source.parse_error(
            node,
            f"the name {node.id} is not defined here; define it above, or use only what is supported: "
            f"{SUPPORTED}",
        )

    def _eval_List(self, node: ast.List) -> list[Any]:
        return [self.value_of(element) for element in node.elts]

    def _eval_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.value_of(element) for element in node.elts)

    def _eval_Attribute(self, node: ast.Attribute) -> Any:
        if node.attr.startswith("_"):
            raise self.source.parse_error(
                node,
                f"the attribute {node.attr} is private; names starting with _ are never read; {SUPPORTED}",
            )
        base = self.value_of(node.value)
        found = base.attribute(node.attr) if isinstance(base, Interpreted) else MISSING
        if is_handle(base) and node.attr in HANDLE_PROPERTIES:
            found = getattr(base, node.attr, MISSING)
        if found is MISSING:
            raise self.source.parse_error(
                node,
                f"{describe(base)} has no attribute {node.attr} that a definition may use; {SUPPORTED}",
            )
        return found

    def _eval_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name) and node.func.id not in self.names:
            raise self.source.parse_error(
                node, f"calls to {node.func.id} are not part of a fusion definition; {SUPPORTED}"
            )
        function = self.value_of(node.func)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.source.parse_error(
                    arg, "*arguments are not part of a fusion definition; list them"
                )
            args.append(self.value_of(arg))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.source.parse_error(
                    keyword, "**arguments are not part of a fusion definition; name them"
                )
            kwargs[keyword.arg] = self.value_of(keyword.value)
        if isinstance(function, Builtin):
            return self._builtin(node, function.label, args, kwargs)
        if not isinstance(function, Interpreted):
            raise self.source.parse_error(node, f"{describe(function)} cannot be called; {SUPPORTED}")
        return function.call(self.site(node), args, kwargs)

    def _builtin(self, node: ast.Call, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        site = self.site(node)
        if name == "complex" and not kwargs and len(args) in (1, 2) and all(map(is_number, args)):
            return complex(*args)
        if kwargs or len(args) != 1:
            raise site.error(f"{name}() takes exactly one argument here")
        (value,) = args
        if name == "len":
            if not isinstance(value, list | tuple):
                raise site.error(f"len() applies to lists and tuples, not to {describe(value)}")
            return len(value)
        if name == "abs" and is_handle(value):
            return self._handle_operation(node, "abs", abs, value)
        if name == "float" and isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                raise site.error(
                    f"float({value!r:.40}) is not a number; write float('inf') or float('nan')"
                ) from None
            # One NaN object for every float("nan"): NaN != NaN, but equal fusions compare their
            # constants in tuples, where the same object counts as equal.
            return math.nan if math.isnan(number) else number
        if not is_number(value) or (name != "abs" and isinstance(value, complex)):
            raise site.error(f"{name}() does not apply to {describe(value)}")
        try:
            return checked_int(site, BUILTINS[name](value))
        except (OverflowError, ValueError) as err:
            raise site.error(f"{name}({value!r}) has no value: {err}") from None

    def _eval_Subscript(self, node: ast.Subscript) -> Any:
        base = self.value_of(node.value)
        if isinstance(node.slice, ast.Slice):
            bounds = [
                None if part is None else self.value_of(part)
                for part in (node.slice.lower, node.slice.upper, node.slice.step)
            ]
            if not all(bound is None or isinstance(bound, int) for bound in bounds):
                raise self.source.parse_error(node, "slice bounds must be whole numbers")
            index: Any = slice(*bounds)
        else:
            index = self.value_of(node.slice)
        if is_handle(base):
            return self._handle_operation(node, "[]", operator.getitem, base, index)
        if not isinstance(base, list | tuple):
            raise self.source.parse_error(
                node, f"{describe(base)} cannot be indexed; only lists and tuples can"
            )
        if not isinstance(index, int | slice) or isinstance(index, bool):
            raise self.source.parse_error(node, f"a list index must be a whole number, not {describe(index)}")
        try:
            return base[index]
        except (IndexError, ValueError) as err:
            raise self.source.parse_error(
                node, f"index {index} is out of range for a list of {len(base)}"
            ) from err

    def _eval_BinOp(self, node: ast.BinOp) -> Any:
        symbol, function = self._operator(node, node.op, _BINARY)
        left, right = self.value_of(node.left), self.value_of(node.right)
        return self._apply(node, symbol, function, left, right)

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.value_of(node.operand)
        if isinstance(node.op, ast.Not):
            if not is_number(operand):
                raise self.source.parse_error(node, "`not` applies to numbers only; use fd.ops.logical_not")
            return not operand
        symbol, function = self._operator(node, node.op, _UNARY)
        if is_handle(operand):
            return self._handle_operation(node, symbol, function, operand)
        if not is_number(operand) or (isinstance(node.op, ast.Invert) and not isinstance(operand, int)):
            raise self.source.parse_error(node, f"unary {symbol} does not apply to {describe(operand)}")
        return checked_int(self.site(node), function(operand))

    def _eval_Compare(self, node: ast.Compare) -> Any:
        if len(node.ops) != 1:
            raise self.source.parse_error(
                node, "chained comparisons are not supported; compare two values at a time"
            )
        symbol, function = self._operator(node, node.ops[0], _COMPARE)
        return self._apply(
            node, symbol, function, self.value_of(node.left), self.value_of(node.comparators[0])
        )

    def _operator(self, node: ast.AST, op: ast.AST, table: dict) -> tuple[str, Callable]:
        if type(op) not in table:
            table_symbols = [symbol for symbol, _ in table.values()]
            raise self.source.parse_error(
                node,
                f"the operator {type(op).__name__} is not supported; use one of {' '.join(table_symbols)}",
            )
        return table[type(op)]

    def _apply(self, node: ast.AST, symbol: str, function: Callable, left: Any, right: Any) -> Any:
        if is_handle(left) or is_handle(right):
            if not all(is_handle(v) or is_number(v) for v in (left, right)):
                raise self.source.parse_error(
                    node, f"{symbol} does not apply to {describe(left)} and {describe(right)}"
                )
            return self._handle_operation(node, symbol, function, left, right)
        if not (is_number(left) and is_number(right)):
            raise self.source.parse_error(
                node,
                f"{symbol} applies to numbers and fusion values, not {describe(left)} and {describe(right)}",
            )
        return self._number_operation(node, symbol, function, left, right)

    def _number_operation(self, node: ast.AST, symbol: str, function: Callable, left: Any, right: Any) -> Any:
        site = self.site(node)
        both_int = isinstance(left, int) and isinstance(right, int)
        if both_int and symbol == "**" and right >= 0 and not power_fits(left, right):
            raise site.limit(too_big_message(f"{left} ** {right}"))
        if both_int and symbol == "<<" and right >= 0 and not shift_fits(left, right):
            raise site.limit(too_big_message(f"{left} << {right}"))
        try:
            return checked_int(site, function(left, right))
        except ZeroDivisionError:
            raise site.error(f"{symbol} by zero") from None
        except OverflowError:
            raise site.limit(f"the result of {symbol} overflows a 64-bit float") from None
        except (TypeError, ValueError) as err:
            raise site.error(f"{symbol} cannot combine {left!r} and {right!r}: {err}") from None

    def _handle_operation(self, node: ast.AST, symbol: str, function: Callable, *operands: Any) -> Any:
        self.before_handle_op(node)
        try:
            return function(*operands)
        except HfuseError as err:
            raise self.source.placed(err, node) from None
        except (TypeError, ValueError, IndexError) as err:
            raise self.source.parse_error(node, f"{symbol} on a fusion value failed: {err}") from None
