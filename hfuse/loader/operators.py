"""The operators of a script's Python: arithmetic, comparisons, `in`, on numbers, lists and fusion values.

Numbers combine as in Python, with every whole result bounded to 64 bits; lists and tuples join
and repeat, paying a step per element made; fusion values (handles) record ops through the frontend
(`handle_operation`, which tells the loader first); the loader's own values, such as the input
tensors, define their operators themselves (`Interpreted.operate`).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterator
from typing import Any

from hfuse.errors import HfuseError
from hfuse.loader.budget import Budget
from hfuse.loader.limits import int_fits, power_fits, shift_fits, too_big_message
from hfuse.loader.source import Source
from hfuse.loader.values import (
    MISSING,
    CallSite,
    Interpreted,
    checked_int,
    describe,
    is_handle,
    is_hashable_key,
    is_number,
)

SEQUENCE_TYPES = (list, tuple, str)  # what + joins and * repeats
FAST_NUMBERS = frozenset({int, float})  # operands the interpreter combines without further checks
BINARY = {
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
UNARY = {
    ast.USub: ("-", operator.neg),
    ast.UAdd: ("+", operator.pos),
    ast.Invert: ("~", operator.invert),
}
PLAIN_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}  # fmt: skip
COMPARE = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
}


class Operators:
    """Applies operators for an evaluator; `before_handle_op(node)` runs before each op on fusion values."""

    source: Source
    budget: Budget
    before_handle_op: Callable[[ast.AST], None]

    def site(self, node: ast.AST) -> CallSite:
        return CallSite(self.source, node, self.budget)

    def error(self, node: ast.AST, message: str) -> HfuseError:
        return self.source.parse_error(node, message)

    def _charged(self, node: ast.AST, value: Any) -> Iterator[Any]:
        budget = self.budget
        walked = iter(value)
        while True:
            try:
                item = next(walked)
            except StopIteration:
                return
            except RecursionError:
                raise
            except (RuntimeError, ValueError) as err:  # a dict changed while walked, zip(strict=True)
                raise self.error(node, f"this loop cannot go on: {err}") from None
            budget.steps += 1
            if budget.steps > budget.max_steps:
                raise budget.exhausted(node)
            yield item

    def apply(self, node: ast.AST, symbol: str, function: Callable, left: Any, right: Any) -> Any:
        if type(left) in FAST_NUMBERS and type(right) in FAST_NUMBERS:
            return self._number_operation(node, symbol, function, left, right)
        if is_handle(left) or is_handle(right):
            if not all(is_handle(v) or is_number(v) for v in (left, right)):
                raise self.error(node, f"{symbol} does not apply to {describe(left)} and {describe(right)}")
            return self.handle_operation(node, symbol, function, left, right)
        if isinstance(left, Interpreted) or isinstance(right, Interpreted):
            result = self._interpreted_operation(node, symbol, left, right)
            if result is MISSING:
                raise self.error(node, f"{symbol} does not apply to {describe(left)} and {describe(right)}")
            return result
        if is_number(left) and is_number(right):
            return self._number_operation(node, symbol, function, left, right)
        if symbol in ("+", "*") and (isinstance(left, SEQUENCE_TYPES) or isinstance(right, SEQUENCE_TYPES)):
            return self._sequence_operation(node, symbol, left, right)
        raise self.error(
            node, f"{symbol} applies to numbers and fusion values, not {describe(left)} and {describe(right)}"
        )

    def _interpreted_operation(self, node: ast.AST, symbol: str, left: Any, right: Any) -> Any:
        """An operator the loader's own values define, such as arithmetic on the inputs' torch tensors;
        MISSING where neither operand defines it."""
        site = self.site(node)
        result = MISSING
        if isinstance(left, Interpreted):
            result = left.operate(site, symbol, right, reflected=False)
        if result is MISSING and isinstance(right, Interpreted):
            result = right.operate(site, symbol, left, reflected=True)
        return result

    def _sequence_operation(self, node: ast.AST, symbol: str, left: Any, right: Any) -> Any:
        if symbol == "+":
            if type(left) is not type(right):
                raise self.error(
                    node, f"+ joins two lists, tuples or strings, not {describe(left)} and {describe(right)}"
                )
            self.budget.charge(node, len(left) + len(right))
            return left + right
        sequence, count = (left, right) if isinstance(left, SEQUENCE_TYPES) else (right, left)
        if not isinstance(count, int):
            raise self.error(
                node, f"* repeats a list or a string by a whole number, not by {describe(count)}"
            )
        self.budget.charge(node, len(sequence) * max(count, 0))
        return sequence * count

    def _number_operation(self, node: ast.AST, symbol: str, function: Callable, left: Any, right: Any) -> Any:
        if symbol in ("**", "<<") and isinstance(left, int) and isinstance(right, int) and right >= 0:
            fits = power_fits(left, right) if symbol == "**" else shift_fits(left, right)
            if not fits:
                raise self.site(node).limit(too_big_message(f"{left} {symbol} {right}"))
        try:
            result = function(left, right)
        except ZeroDivisionError:
            raise self.site(node).error(f"{symbol} by zero") from None
        except OverflowError:
            raise self.site(node).limit(f"the result of {symbol} overflows a 64-bit float") from None
        except (TypeError, ValueError) as err:
            raise self.site(node).error(f"{symbol} cannot combine {left!r} and {right!r}: {err}") from None
        return result if type(result) is not int or int_fits(result) else checked_int(self.site(node), result)

    def compare(self, node: ast.AST, op: ast.cmpop, left: Any, right: Any) -> Any:
        if isinstance(op, ast.Is | ast.IsNot):
            return (left is right) == isinstance(op, ast.Is)
        if isinstance(op, ast.In | ast.NotIn):
            return self.contains(node, right, left) == isinstance(op, ast.In)
        symbol, function = self._operator(node, op, COMPARE)
        if is_handle(left) or is_handle(right):
            return self.apply(node, symbol, function, left, right)
        if isinstance(left, Interpreted) or isinstance(right, Interpreted):
            result = self._interpreted_operation(node, symbol, left, right)
            if result is MISSING and symbol in ("==", "!="):
                return self.plain_equal(node, left, right) == (symbol == "==")  # torch.float32 == t.dtype
            if result is MISSING:
                raise self.error(node, f"{symbol} does not apply to {describe(left)} and {describe(right)}")
            return result
        if isinstance(left, list | tuple | dict) or isinstance(right, list | tuple | dict):
            if symbol not in ("==", "!="):
                raise self.error(
                    node, f"{symbol} compares numbers or strings, not {describe(left)} and {describe(right)}"
                )
            return self.plain_equal(node, left, right) == (symbol == "==")
        if symbol not in ("==", "!="):
            plain_order = (is_number(left) and is_number(right)) or (
                isinstance(left, str) and isinstance(right, str)
            )
            if not plain_order:
                raise self.error(
                    node, f"{symbol} compares numbers or strings, not {describe(left)} and {describe(right)}"
                )
        try:
            return function(left, right)
        except TypeError as err:
            raise self.error(node, f"{symbol} cannot compare {left!r} and {right!r}: {err}") from None

    def contains(self, node: ast.AST, container: Any, needle: Any) -> bool:
        if is_handle(needle):
            raise self.error(node, "`in` does not apply to fusion values; compare them with fd.ops.eq")
        if isinstance(container, dict):
            return is_hashable_key(needle) and needle in container
        if isinstance(container, str):
            if not isinstance(needle, str):
                raise self.error(node, f"`in` a string looks for a string, not {describe(needle)}")
            return needle in container
        if isinstance(container, range):
            return needle in container
        if not isinstance(container, list | tuple):
            raise self.error(
                node, f"`in` looks in a list, a tuple, a dict, a string or a range, not {describe(container)}"
            )
        return any(self.plain_equal(node, item, needle) for item in self._charged(node, container))

    def plain_equal(self, node: ast.AST, left: Any, right: Any) -> bool:
        """`==` of plain values, containers compared element by element; a fusion value equals only itself."""
        if is_handle(left) or is_handle(right):
            return left is right
        for one, other in ((left, right), (right, left)):
            if isinstance(one, Interpreted):
                found = one.equals(self.site(node), other, lambda a, b: self.plain_equal(node, a, b))
                if found is not MISSING:
                    return found
        if isinstance(left, list | tuple) and isinstance(right, list | tuple):
            if type(left) is not type(right) or len(left) != len(right):
                return False
            return all(
                self.plain_equal(node, a, b) for a, b in zip(self._charged(node, left), right, strict=True)
            )
        if isinstance(left, dict) and isinstance(right, dict):
            if left.keys() != right.keys():
                return False
            return all(self.plain_equal(node, left[k], right[k]) for k in self._charged(node, left))
        return bool(left == right)

    def _operator(self, node: ast.AST, op: ast.AST, table: dict) -> tuple[str, Callable]:
        if type(op) not in table:
            table_symbols = [symbol for symbol, _ in table.values()]
            raise self.error(
                node,
                f"the operator {type(op).__name__} is not supported; use one of {' '.join(table_symbols)}",
            )
        return table[type(op)]

    def handle_operation(self, node: ast.AST, symbol: str, function: Callable, *operands: Any) -> Any:
        self.before_handle_op(node)
        try:
            return function(*operands)
        except HfuseError as err:
            raise self.source.placed(err, node) from None
        except (TypeError, ValueError, IndexError) as err:
            raise self.error(node, f"{symbol} on a fusion value failed: {err}") from None
