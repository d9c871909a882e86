"""Evaluates the expressions of a fusion-definition script from its AST, without running any of it.

The values are those of `values`; names resolve through `Scope`s (a call's own names, then the
names it was defined among, up to the script's top level and the builtins). Every node evaluated
takes a step of the script's `Budget`, and every walk over a container takes a step per element,
so no expression runs unbounded. Nothing is looked up by a name the script chooses except in the
loader's own tables, and no attribute starting with `_` is ever read.
"""

from __future__ import annotations

import ast
import difflib
import operator
import types
from collections.abc import Callable, Iterator
from typing import Any

from hfuse.frontend.handles import Handle, Tensor, Vector
from hfuse.loader.budget import Budget
from hfuse.loader.limits import int_fits
from hfuse.loader.operators import BINARY, FAST_NUMBERS, PLAIN_COMPARE, UNARY, Operators
from hfuse.loader.source import SUPPORTED, Source
from hfuse.loader.values import (
    MISSING,
    CallSite,
    FusionDtype,
    Interpreted,
    checked_int,
    describe,
    is_handle,
    is_hashable_key,
    is_number,
    truth,
)

# Values a loop, a comprehension or an unpacking may walk (enumerate and zip walk lazily, as in Python).
ITERABLE_TYPES = (list, tuple, dict, str, range, enumerate, zip, types.GeneratorType)

_UNSUPPORTED_EXPRESSIONS = {
    ast.Lambda: "lambda expressions",
    ast.SetComp: "set comprehensions",
    ast.JoinedStr: "f-strings",
    ast.FormattedValue: "f-strings",
    ast.Await: "await expressions",
    ast.Yield: "yield expressions",
    ast.YieldFrom: "yield expressions",
    ast.Set: "set literals",
    ast.Starred: "* unpacking outside a call, a list or a tuple",
}


class Scope:
    """The names one call (or the script's top level, or a comprehension) binds, and the scope its code
    was written in."""

    __slots__ = ("names", "parent", "comprehension")

    def __init__(
        self, names: dict[str, Any] | None = None, parent: Scope | None = None, comprehension: bool = False
    ):
        self.names = {} if names is None else names
        self.parent = parent
        self.comprehension = comprehension

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            value = scope.names.get(name, MISSING)
            if value is not MISSING:
                return value
            scope = scope.parent
        return MISSING


class HandleMethod(Interpreted):
    """`t.shape()` or `t.size(i)` of a fusion tensor, recorded like `fd.ops.shape(t)`, `v.is_tensor()` or
    `v.dtype()`."""

    def __init__(self, evaluator: Evaluator, handle: Any, name: str):
        self.evaluator = evaluator
        self.handle = handle
        self.name = name
        self.label = f"{handle!r}.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if not all(is_number(v) for v in [*args, *kwargs.values()]):
            raise site.error(f"{self.label}() takes whole numbers")
        method = getattr(self.handle, self.name)
        result = self.evaluator.handle_operation(
            site.node, f".{self.name}()", lambda: method(*args, **kwargs)
        )
        return FusionDtype(result) if self.name == "dtype" else result


class Evaluator(Operators):
    """Evaluates expression nodes in a scope.

    `before_handle_op(node)` runs before an operator on fusion values reaches the frontend, so the
    loader can count ops and tell the frontend where the op is written.
    """

    def __init__(self, source: Source, budget: Budget, before_handle_op: Callable[[ast.AST], None]):
        self.source = source
        self.budget = budget
        self.before_handle_op = before_handle_op

    def value_of(self, node: ast.AST, scope: Scope) -> Any:
        budget = self.budget
        budget.steps += 1
        if budget.steps > budget.max_steps:
            raise budget.exhausted(node)
        evaluate = _EXPRESSIONS.get(type(node))
        if evaluate is None:
            what = _UNSUPPORTED_EXPRESSIONS.get(type(node), f"{type(node).__name__} expressions")
            raise self.source.parse_error(node, f"{what} are not part of a fusion definition; {SUPPORTED}")
        return evaluate(self, node, scope)

    def truth(self, node: ast.AST, value: Any) -> bool:
        return value if type(value) is bool else truth(self.site(node), value)

    # walking containers, a step per element
    def iterate(self, node: ast.AST, value: Any) -> Iterator[Any]:
        if isinstance(value, Vector):
            return (self.handle_operation(node, "[]", operator.getitem, value, i) for i in range(len(value)))
        if isinstance(value, Interpreted) and (elements := value.elements()) is not None:
            return self._charged(node, elements)
        if not isinstance(value, ITERABLE_TYPES):
            raise self.error(
                node, f"{describe(value)} cannot be iterated; loop over a list, a tuple, a dict or a range"
            )
        return self._charged(node, value)

    def materialize(self, node: ast.AST, value: Any) -> list[Any]:
        """The elements of a value as a list; a sized value is paid for before it is copied."""
        if isinstance(value, list | tuple | dict | str | range):
            self.budget.charge(node, len(value))
            return list(value)
        return list(self.iterate(node, value))

    # names and literals
    def _eval_Constant(self, node: ast.Constant, scope: Scope) -> Any:
        value = node.value
        if type(value) is int:
            return value if int_fits(value) else checked_int(self.site(node), value)
        if isinstance(value, bytes) or value is Ellipsis:
            raise self.error(node, f"the literal {value!r:.40} is not part of a fusion definition")
        return value

    def _eval_Name(self, node: ast.Name, scope: Scope) -> Any:
        value = scope.lookup(node.id)
        if value is MISSING:
            raise self.error(
                node,
                f"the name {node.id} is not defined here; define it above, or use only what is supported: "
                f"{SUPPORTED}",
            )
        return value

    def _elements(self, elements: list[ast.expr], scope: Scope) -> list[Any]:
        items: list[Any] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                items.extend(self.materialize(element, self.value_of(element.value, scope)))
            else:
                items.append(self.value_of(element, scope))
        return items

    def _eval_List(self, node: ast.List, scope: Scope) -> list[Any]:
        return self._elements(node.elts, scope)

    def _eval_Tuple(self, node: ast.Tuple, scope: Scope) -> tuple[Any, ...]:
        return tuple(self._elements(node.elts, scope))

    def _eval_Dict(self, node: ast.Dict, scope: Scope) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:
                other = self.value_of(value_node, scope)
                if not isinstance(other, dict):
                    raise self.error(value_node, f"** unpacks a dict, not {describe(other)}")
                self.budget.charge(value_node, len(other))
                result.update(other)
                continue
            key = self.value_of(key_node, scope)
            result[self.dict_key(key_node, key)] = self.value_of(value_node, scope)
        return result

    def dict_key(self, node: ast.AST, key: Any) -> Any:
        if not is_hashable_key(key):
            raise self.error(
                node, f"{describe(key)} cannot be a dict key; use numbers, strings or tuples of them"
            )
        return key

    # attributes, calls, indexing
    def _eval_Attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        if node.attr.startswith("_"):
            raise self.error(
                node,
                f"the attribute {node.attr} is private; names starting with _ are never read; {SUPPORTED}",
            )
        base = self.value_of(node.value, scope)
        if isinstance(base, Tensor) and node.attr == "shape":
            # read, not called: the 2023 frontend's property, the tensor's extents (`B, C = t.shape`)
            return self.handle_operation(node, ".shape", base.shape)
        return self._attribute(node, base)

    def _attribute(self, node: ast.Attribute, base: Any) -> Any:
        found = self.attribute_of(base, node.attr)
        if found is MISSING:
            raise self.error(
                node,
                f"{describe(base)} has no attribute {node.attr} that a definition may use"
                f"{did_you_mean(base, node.attr)}; {what_to_do_about(base)}",
            )
        return found

    def attribute_of(self, base: Any, name: str) -> Any:
        """An attribute the loader gives a value; overridden to add the methods of lists and dicts."""
        if isinstance(base, Interpreted):
            return base.attribute(name)
        if isinstance(base, Tensor):
            if name == "ndim":
                return base.ndim
            if name in ("shape", "size"):
                return HandleMethod(self, base, name)
        if isinstance(base, Handle) and name in ("is_tensor", "dtype"):
            return HandleMethod(self, base, name)
        if isinstance(base, Vector) and name == "size":
            return base.size
        return MISSING

    def _eval_Call(self, node: ast.Call, scope: Scope) -> Any:
        if isinstance(node.func, ast.Name) and scope.lookup(node.func.id) is MISSING:
            raise self.error(
                node, f"calls to {node.func.id} are not part of a fusion definition; {SUPPORTED}"
            )
        function = self._callee(node.func, scope)
        args = self._elements(node.args, scope)
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            value = self.value_of(keyword.value, scope)
            if keyword.arg is not None:
                kwargs[keyword.arg] = value
                continue
            if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                raise self.error(keyword.value, f"** passes a dict with string keys, not {describe(value)}")
            self.budget.charge(keyword.value, len(value))
            repeated = sorted(set(kwargs) & set(value))
            if repeated:
                raise self.error(keyword.value, f"the argument {repeated[0]} is given twice")
            kwargs.update(value)
        if not isinstance(function, Interpreted):
            raise self.error(node, f"{describe(function)} cannot be called; {SUPPORTED}")
        return function.call(self.site(node), args, kwargs)

    def _callee(self, node: ast.expr, scope: Scope) -> Any:
        """What a call calls: `t.shape()` is the method later frontends have where 2023's had a property."""
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            return self._attribute(node, self.value_of(node.value, scope))
        return self.value_of(node, scope)

    def _eval_Subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        base = self.value_of(node.value, scope)
        return self.item_of(node, base, self.index_of(node.slice, scope))

    def index_of(self, node: ast.expr, scope: Scope) -> Any:
        """The index of a subscript: slices and `...` are only written there."""
        if isinstance(node, ast.Slice):
            self.budget.charge(node)
            bounds = [
                None if part is None else self.value_of(part, scope)
                for part in (node.lower, node.upper, node.step)
            ]
            if not all(
                bound is None or (isinstance(bound, int) and not isinstance(bound, bool)) for bound in bounds
            ):
                raise self.error(node, "slice bounds must be whole numbers")
            if bounds[2] == 0:
                raise self.error(node, "a slice step must not be zero")
            return slice(*bounds)
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return Ellipsis
        if isinstance(node, ast.Tuple):
            self.budget.charge(node)
            return tuple(self.index_of(element, scope) for element in node.elts)
        return self.value_of(node, scope)

    def item_of(self, node: ast.AST, base: Any, index: Any) -> Any:
        if is_handle(base):
            return self.handle_operation(node, "[]", operator.getitem, base, index)
        if isinstance(base, Interpreted):
            return base.item(self.site(node), index)
        if isinstance(base, dict):
            if not is_hashable_key(index) or index not in base:
                raise self.error(node, f"the key {index!r:.60} is not in the dict")
            return base[index]
        if not isinstance(base, list | tuple | str | range):
            raise self.error(node, f"{describe(base)} cannot be indexed; only lists, tuples and dicts can")
        if isinstance(index, slice):
            self.budget.charge(node, len(range(len(base))[index]))
            return base[index]
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.error(node, f"a list index must be a whole number, not {describe(index)}")
        try:
            return base[index]
        except IndexError:
            raise self.error(node, f"index {index} is out of range for a list of {len(base)}") from None

    # operators
    def _eval_BinOp(self, node: ast.BinOp, scope: Scope) -> Any:
        symbol, function = self._operator(node, node.op, BINARY)
        left, right = self.value_of(node.left, scope), self.value_of(node.right, scope)
        return self.apply(node, symbol, function, left, right)

    def _eval_UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Any:
        operand = self.value_of(node.operand, scope)
        if isinstance(node.op, ast.Not):
            if is_handle(operand):
                raise self.error(node, "`not` does not apply to fusion values; use fd.ops.logical_not")
            return not self.truth(node, operand)
        symbol, function = self._operator(node, node.op, UNARY)
        if is_handle(operand):
            return self.handle_operation(node, symbol, function, operand)
        if isinstance(operand, Interpreted):
            result = operand.operate(self.site(node), symbol, MISSING, reflected=False)
            if result is not MISSING:
                return result
        if not is_number(operand) or (isinstance(node.op, ast.Invert) and not isinstance(operand, int)):
            raise self.error(node, f"unary {symbol} does not apply to {describe(operand)}")
        return checked_int(self.site(node), function(operand))

    def _eval_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Any:
        value = self.value_of(node.values[0], scope)
        for operand in node.values[1:]:
            if self.truth(node, value) != isinstance(node.op, ast.And):
                return value
            value = self.value_of(operand, scope)
        return value

    def _eval_NamedExpr(self, node: ast.NamedExpr, scope: Scope) -> Any:
        """`(t := expr)`: binds in the scope the comprehension it is written in (if any) belongs to."""
        value = self.value_of(node.value, scope)
        while scope.comprehension and scope.parent is not None:
            scope = scope.parent
        self.bind(node.target, value, scope)
        return value

    def _eval_IfExp(self, node: ast.IfExp, scope: Scope) -> Any:
        chosen = node.body if self.truth(node.test, self.value_of(node.test, scope)) else node.orelse
        return self.value_of(chosen, scope)

    def _eval_Compare(self, node: ast.Compare, scope: Scope) -> Any:
        left = self.value_of(node.left, scope)
        if len(node.ops) == 1:
            right = self.value_of(node.comparators[0], scope)
            plain = PLAIN_COMPARE.get(type(node.ops[0]))
            if plain is not None and type(left) in FAST_NUMBERS and type(right) in FAST_NUMBERS:
                return plain(left, right)
            return self.compare(node, node.ops[0], left, right)
        outcome: Any = True
        for position, (op, comparator) in enumerate(zip(node.ops, node.comparators, strict=True)):
            right = self.value_of(comparator, scope)
            outcome = self.compare(node, op, left, right)
            if position + 1 < len(node.ops) and not self.truth(node, outcome):
                return outcome
            left = right
        return outcome

    # comprehensions: their own scope, as in Python 3
    def _eval_ListComp(self, node: ast.ListComp | ast.GeneratorExp, scope: Scope) -> list[Any]:
        results: list[Any] = []
        self._comprehend(
            node,
            0,
            Scope(parent=scope, comprehension=True),
            lambda inner: results.append(self.value_of(node.elt, inner)),
        )
        return results

    _eval_GeneratorExp = _eval_ListComp  # read at once into a list: nothing it walks is lazy

    def _eval_DictComp(self, node: ast.DictComp, scope: Scope) -> dict[Any, Any]:
        results: dict[Any, Any] = {}

        def add(inner: Scope) -> None:
            key = self.dict_key(node.key, self.value_of(node.key, inner))
            results[key] = self.value_of(node.value, inner)

        self._comprehend(node, 0, Scope(parent=scope, comprehension=True), add)
        return results

    def _comprehend(self, node: ast.AST, level: int, scope: Scope, emit: Callable[[Scope], None]) -> None:
        generators = node.generators  # type: ignore[attr-defined]
        if level == len(generators):
            emit(scope)
            return
        generator = generators[level]
        if generator.is_async:
            raise self.error(node, "async comprehensions are not part of a fusion definition")
        iterable = self.value_of(generator.iter, scope)
        self.budget.loops.append(node)
        try:
            for item in self.iterate(generator.iter, iterable):
                self.bind(generator.target, item, scope)
                if all(self.truth(test, self.value_of(test, scope)) for test in generator.ifs):
                    self._comprehend(node, level + 1, scope, emit)
        finally:
            self.budget.loops.pop()

    # assignment targets
    def bind(self, target: ast.expr, value: Any, scope: Scope) -> None:
        """Binds `value` to a target: a name, a (nested, starred) tuple of targets, `x[i]` or `self.NAME`."""
        if isinstance(target, ast.Name):
            scope.names[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            self._unpack(target, value, scope)
        elif isinstance(target, ast.Subscript):
            self._set_item(
                target, self.value_of(target.value, scope), self.index_of(target.slice, scope), value
            )
        elif isinstance(target, ast.Attribute):
            owner = self.value_of(target.value, scope)
            if not isinstance(owner, Interpreted):
                raise self.error(target, "assign to a name, a tuple of names (T1, T2 = ...) or self.NAME")
            if not owner.set_attribute(target.attr, value):
                raise self.error(target, owner.attribute_write_hint)
        else:
            raise self.error(target, "assign to a name, a tuple of names (T1, T2 = ...) or self.NAME")

    def _set_item(self, target: ast.Subscript, container: Any, index: Any, value: Any) -> None:
        if isinstance(container, dict):
            container[self.dict_key(target, index)] = value
            return
        if not isinstance(container, list):
            raise self.error(
                target, f"{describe(container)} cannot be assigned into; only lists and dicts can"
            )
        if isinstance(index, slice):
            self.budget.charge(
                target, len(container) + (len(value) if isinstance(value, list | tuple) else 0)
            )
            try:
                container[index] = self.materialize(target, value)
            except ValueError as err:
                raise self.error(target, f"slice assignment: {err}") from None
            return
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.error(target, f"a list index must be a whole number, not {describe(index)}")
        if not -len(container) <= index < len(container):
            raise self.error(target, f"index {index} is out of range for a list of {len(container)}")
        container[index] = value

    def _unpack(self, target: ast.Tuple | ast.List, value: Any, scope: Scope) -> None:
        names = target.elts
        if not (isinstance(value, ITERABLE_TYPES) or isinstance(value, Vector)):
            raise self.error(
                target, f"{len(names)} names are assigned but {describe(value)} is not a sequence"
            )
        items = self.materialize(target, value)
        starred = [position for position, name in enumerate(names) if isinstance(name, ast.Starred)]
        if not starred:
            if len(items) != len(names):
                raise self.error(
                    target, f"{len(names)} names are assigned but the value has {len(items)} parts"
                )
            for name, item in zip(names, items, strict=True):
                self.bind(name, item, scope)
            return
        star, after = starred[0], len(names) - starred[0] - 1
        if len(items) < star + after:
            raise self.error(
                target, f"{star + after} or more names are assigned but the value has {len(items)} parts"
            )
        for name, item in zip(names[:star], items[:star], strict=True):
            self.bind(name, item, scope)
        self.bind(names[star].value, items[star : len(items) - after], scope)  # type: ignore[attr-defined]
        for name, item in zip(names[star + 1 :], items[len(items) - after :], strict=True):
            self.bind(name, item, scope)


_EXPRESSIONS: dict[type, Callable[[Evaluator, Any, Scope], Any]] = {
    getattr(ast, name.removeprefix("_eval_")): method
    for name, method in vars(Evaluator).items()
    if name.startswith("_eval_")
}


def what_to_do_about(base: Any) -> str:
    """The end of the message for an attribute `base` does not have."""
    return base.missing_attribute_hint if isinstance(base, Interpreted) else SUPPORTED


def did_you_mean(base: Any, name: str) -> str:
    """` (did you mean eq or exp?)` for a misspelt attribute of a value whose attributes are known."""
    names = base.attribute_names() if isinstance(base, Interpreted) else frozenset()
    close = difflib.get_close_matches(name, sorted(names), n=3)
    return f" (did you mean {' or '.join(close)}?)" if close else ""
