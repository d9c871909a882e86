"""The Python builtins a script may call, and the methods of its lists and dicts.

Each is implemented here over the loader's values, never by handing a script's value to Python's
own function: every walk over a container takes a step per element of the budget, fusion values
only meet the interpreter's own operators (`sum` of tensors records adds), and anything a builtin
would do with a value it does not know is a located ParseError.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hfuse.frontend.handles import Vector
from hfuse.loader.exceptions import exception_classes
from hfuse.loader.values import (
    MISSING,
    CallSite,
    Interpreted,
    TypeValue,
    checked_int,
    describe,
    is_handle,
    is_number,
    truth,
)

if TYPE_CHECKING:
    from hfuse.loader.statements import Interpreter

MAX_STR_CHARS = 10_000  # a script stringifies numbers, dtypes and messages, never whole tensors
Implementation = Callable[["Interpreter", CallSite, list[Any], dict[str, Any]], Any]


class Builtin(Interpreted):
    def __init__(self, interpreter: Interpreter, name: str, implementation: Implementation):
        self.interpreter = interpreter
        self.name = name
        self.implementation = implementation
        self.label = f"{name}()"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.implementation(self.interpreter, site, args, kwargs)

    def shown(self) -> str:
        return f"<built-in function {self.name}>"


class BuiltinType(Builtin, TypeValue):
    """int, float, bool, complex, list, tuple, dict: callable, and a type for isinstance."""

    def __init__(self, interpreter: Interpreter, python_type: type, implementation: Implementation):
        super().__init__(interpreter, python_type.__name__, implementation)
        self.python_type = python_type

    def holds(self, value: Any) -> bool:
        return isinstance(value, self.python_type)

    def shown(self) -> str:
        return f"<class '{self.name}'>"


def builtin_names(interpreter: Interpreter) -> dict[str, Any]:
    names: dict[str, Any] = {name: Builtin(interpreter, name, f) for name, f in _FUNCTIONS.items()}
    names.update({t.__name__: BuiltinType(interpreter, t, f) for t, f in _TYPES.items()})
    names.update(exception_classes())
    names["__name__"] = "__main__"  # a script's `if __name__ == "__main__":` block is its main part
    return names


def _arguments(
    site: CallSite, name: str, args: list[Any], kwargs: dict[str, Any], most: int, keywords=()
) -> None:
    unknown = sorted(set(kwargs) - set(keywords))
    if unknown:
        raise site.error(f"{name}() takes no argument {unknown[0]}")
    if len(args) > most:
        raise site.error(f"{name}() takes at most {most} arguments here")


def _number_conversion(name: str, convert: Callable[[Any], Any]) -> Implementation:
    def implementation(
        interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]
    ) -> Any:
        if kwargs or len(args) != 1:
            raise site.error(f"{name}() takes exactly one argument here")
        (value,) = args
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
        if not is_number(value) or isinstance(value, complex):
            raise site.error(f"{name}() does not apply to {describe(value)}")
        try:
            return checked_int(site, convert(value))
        except (OverflowError, ValueError) as err:
            raise site.error(f"{name}({value!r}) has no value: {err}") from None

    return implementation


def _complex(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> complex:
    if kwargs or len(args) not in (1, 2) or not all(is_number(a) for a in args):
        raise site.error("complex() takes one or two numbers here")
    return complex(*args)


def _bool(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> bool:
    _arguments(site, "bool", args, kwargs, 1)
    return bool(args) and truth(site, args[0])


def _abs(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if kwargs or len(args) != 1:
        raise site.error("abs() takes exactly one argument here")
    (value,) = args
    if is_handle(value):
        return interpreter.handle_operation(site.node, "abs", abs, value)
    if isinstance(value, Interpreted):
        result = value.operate(site, "abs", MISSING, reflected=False)
        if result is not MISSING:
            return result
    if not is_number(value):
        raise site.error(f"abs() does not apply to {describe(value)}")
    return checked_int(site, abs(value))


def _len(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> int:
    if kwargs or len(args) != 1:
        raise site.error("len() takes exactly one argument here")
    (value,) = args
    if not isinstance(value, list | tuple | dict | str | range | Vector):
        raise site.error(f"len() applies to lists and tuples, not to {describe(value)}")
    return len(value)


def _range(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> range:
    if kwargs or not 1 <= len(args) <= 3 or not all(isinstance(a, int) for a in args):
        raise site.error("range() takes one to three whole numbers: range(stop), range(start, stop[, step])")
    if len(args) == 3 and args[2] == 0:
        raise site.error("range() step must not be zero")
    numbers = range(*args)
    try:
        len(numbers)
    except OverflowError:
        raise site.limit(f"range{tuple(args)} holds more numbers than a script may walk") from None
    return numbers


def _list(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    _arguments(site, "list", args, kwargs, 1)
    return interpreter.materialize(site.node, args[0]) if args else []


def _tuple(
    interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]
) -> tuple[Any, ...]:
    _arguments(site, "tuple", args, kwargs, 1)
    return tuple(interpreter.materialize(site.node, args[0])) if args else ()


def _dict(
    interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]
) -> dict[Any, Any]:
    if len(args) > 1:
        raise site.error("dict() takes at most one positional argument")
    result: dict[Any, Any] = {}
    if args:
        _update(interpreter, site, result, args[0])
    interpreter.budget.charge(site.node, len(kwargs))
    result.update(kwargs)
    return result


def _update(interpreter: Interpreter, site: CallSite, target: dict[Any, Any], source: Any) -> None:
    if isinstance(source, dict):
        interpreter.budget.charge(site.node, len(source))
        target.update(source)
        return
    for pair in interpreter.iterate(site.node, source):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise site.error(f"a dict is made from (key, value) pairs, not from {describe(pair)}")
        target[interpreter.dict_key(site.node, pair[0])] = pair[1]


def _enumerate(
    interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]
) -> enumerate:
    _arguments(site, "enumerate", args, kwargs, 2, ("start",))
    start = kwargs.get("start", args[1] if len(args) > 1 else 0)
    if not args or not isinstance(start, int):
        raise site.error("enumerate() takes a list (or other iterable) and a whole-number start")
    return enumerate(interpreter.iterate(site.node, args[0]), start)


def _zip(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> zip:
    _arguments(site, "zip", [], kwargs, 0, ("strict",))
    return zip(*(interpreter.iterate(site.node, a) for a in args), strict=bool(kwargs.get("strict", False)))


def _reversed(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    if kwargs or len(args) != 1:
        raise site.error("reversed() takes exactly one argument")
    return interpreter.materialize(site.node, args[0])[::-1]


def _orderable(site: CallSite, name: str, items: list[Any]) -> None:
    numbers = all(is_number(i) and not isinstance(i, complex) for i in items)
    if not (numbers or all(isinstance(i, str) for i in items)):
        bad = next((i for i in items if not (is_number(i) or isinstance(i, str))), items[0])
        raise site.error(f"{name}() compares numbers or strings, not {describe(bad)}")


def _keys_of(interpreter: Interpreter, site: CallSite, name: str, items: list[Any], key: Any) -> list[Any]:
    if key is None:
        keys = items
    elif isinstance(key, Interpreted):
        keys = [key.call(site, [item], {}) for item in items]
    else:
        raise site.error(f"{name}(key=...) takes a function, not {describe(key)}")
    _orderable(site, name, keys)
    return keys


def _sorted(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    _arguments(site, "sorted", args, kwargs, 1, ("key", "reverse"))
    if not args:
        raise site.error("sorted() takes a list (or other iterable)")
    items = interpreter.materialize(site.node, args[0])
    keys = _keys_of(interpreter, site, "sorted", items, kwargs.get("key"))
    interpreter.budget.charge(site.node, len(items))
    order = sorted(range(len(items)), key=keys.__getitem__, reverse=truth(site, kwargs.get("reverse", False)))
    return [items[i] for i in order]


def _extreme(name: str, pick: Callable[..., Any]) -> Implementation:
    def implementation(
        interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]
    ) -> Any:
        _arguments(site, name, args, kwargs, len(args), ("key", "default"))
        items = interpreter.materialize(site.node, args[0]) if len(args) == 1 else list(args)
        if not items:
            if "default" in kwargs:
                return kwargs["default"]
            raise site.error(f"{name}() of nothing: give it values, or default=")
        keys = _keys_of(interpreter, site, name, items, kwargs.get("key"))
        return items[pick(range(len(items)), key=keys.__getitem__)]

    return implementation


def _sum(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _arguments(site, "sum", args, kwargs, 2, ("start",))
    if not args:
        raise site.error("sum() takes a list (or other iterable)")
    total = kwargs.get("start", args[1] if len(args) > 1 else 0)
    for item in interpreter.iterate(site.node, args[0]):
        total = interpreter.apply(site.node, "+", operator.add, total, item)
    return total


def _isinstance(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> bool:
    if kwargs or len(args) != 2:
        raise site.error("isinstance() takes a value and a type")
    value, kinds = args
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not all(isinstance(kind, TypeValue) for kind in kinds):
        raise site.error("isinstance() takes int, float, bool, complex, list, tuple, dict or torch.Tensor")
    return any(kind.holds(value) for kind in kinds)


def _getattr(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`getattr(fd.ops, name)`: the attributes the loader gives a value, as `value.name` would read them."""
    if kwargs or len(args) not in (2, 3) or not isinstance(args[1], str):
        raise site.error("getattr() takes a value, an attribute name and an optional default")
    if args[1].startswith("_"):
        raise site.error(f"the attribute {args[1]:.60} is private; names starting with _ are never read")
    found = interpreter.attribute_of(args[0], args[1])
    if found is MISSING:
        if len(args) == 3:
            return args[2]
        raise site.error(f"{describe(args[0])} has no attribute {args[1]:.60} that a definition may use")
    return found


def _hasattr(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> bool:
    if kwargs or len(args) != 2 or not isinstance(args[1], str):
        raise site.error("hasattr() takes a value and an attribute name")
    return not args[1].startswith("_") and interpreter.attribute_of(args[0], args[1]) is not MISSING


def _str(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> str:
    """`str(value)`: the text print writes for it, at most MAX_STR_CHARS long."""
    if kwargs or len(args) > 1:
        raise site.error("str() takes one value here")
    if not args:
        return ""
    text = interpreter.shown(args[0], room=MAX_STR_CHARS)
    if len(text) > MAX_STR_CHARS:
        raise site.limit(f"str() of {describe(args[0])} is longer than {MAX_STR_CHARS} characters")
    site.charge(len(text))
    return text


def _print(interpreter: Interpreter, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> None:
    _arguments(site, "print", [], kwargs, 0, ("sep", "end", "flush"))
    sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
    if not isinstance(sep, str | type(None)) or not isinstance(end, str | type(None)):
        raise site.error("print(sep=..., end=...) take strings")
    sep = " " if sep is None else sep
    shown, room = [], interpreter.printed_room
    for value in args:  # each value shown in the room the ones before it left
        shown.append(interpreter.shown(value, room=room))
        room -= len(shown[-1]) + len(sep)
    interpreter.write(sep.join(shown) + ("\n" if end is None else end))


_FUNCTIONS: dict[str, Implementation] = {
    "abs": _abs,
    "len": _len,
    "range": _range,
    "enumerate": _enumerate,
    "zip": _zip,
    "reversed": _reversed,
    "sorted": _sorted,
    "min": _extreme("min", min),
    "max": _extreme("max", max),
    "sum": _sum,
    "isinstance": _isinstance,
    "getattr": _getattr,
    "hasattr": _hasattr,
    "print": _print,
}
_TYPES: dict[type, Implementation] = {
    int: _number_conversion("int", int),
    float: _number_conversion("float", float),
    complex: _complex,
    bool: _bool,
    list: _list,
    tuple: _tuple,
    dict: _dict,
    str: _str,
}


class BuiltinMethod(Interpreted):
    """`lst.append`, `d.items` ...: a method of one of the script's lists or dicts."""

    def __init__(self, interpreter: Interpreter, owner: Any, name: str, method: Method):
        self.interpreter = interpreter
        self.owner = owner
        self.method = method
        self.label = f"{type(owner).__name__}.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        implementation, fewest, most, keywords = self.method
        if not fewest <= len(args) <= most or not set(kwargs) <= set(keywords):
            raise site.error(f"{self.label}() takes {fewest} to {most} arguments{_named(keywords)}")
        return implementation(self.interpreter, site, self.owner, *args, **kwargs)


def _named(keywords: tuple[str, ...]) -> str:
    return f" and the keywords {', '.join(keywords)}" if keywords else ""


def container_method(interpreter: Interpreter, owner: Any, name: str) -> Any:
    table = _LIST_METHODS if isinstance(owner, list) else _DICT_METHODS if isinstance(owner, dict) else {}
    if isinstance(owner, tuple):
        table = {k: _LIST_METHODS[k] for k in ("index", "count")}
    method = table.get(name)
    return MISSING if method is None else BuiltinMethod(interpreter, owner, name, method)


def _position(interpreter: Interpreter, site: CallSite, items: list[Any], value: Any) -> int:
    interpreter.budget.charge(site.node, len(items))
    return next((i for i, item in enumerate(items) if interpreter.plain_equal(site.node, item, value)), -1)


def _list_index(interpreter: Interpreter, site: CallSite, items: list[Any], value: Any) -> int:
    found = _position(interpreter, site, items, value)
    if found < 0:
        raise site.error(f"{interpreter.shown(value, quoted=True):.60} is not in the list")
    return found


def _list_remove(interpreter: Interpreter, site: CallSite, items: list[Any], value: Any) -> None:
    del items[_list_index(interpreter, site, items, value)]


def _list_count(interpreter: Interpreter, site: CallSite, items: list[Any], value: Any) -> int:
    interpreter.budget.charge(site.node, len(items))
    return sum(interpreter.plain_equal(site.node, item, value) for item in items)


def _list_pop(interpreter: Interpreter, site: CallSite, items: list[Any], index: int = -1) -> Any:
    if not items:
        raise site.error("pop() from an empty list")
    if not isinstance(index, int) or not -len(items) <= index < len(items):
        raise site.error(f"pop({index!r:.40}): out of range for a list of {len(items)}")
    interpreter.budget.charge(site.node, len(items))
    return items.pop(index)


def _list_insert(interpreter: Interpreter, site: CallSite, items: list[Any], index: int, value: Any) -> None:
    if not isinstance(index, int):
        raise site.error("insert() takes a whole-number position")
    interpreter.budget.charge(site.node, len(items))
    items.insert(index, value)


def _list_sort(
    interpreter: Interpreter, site: CallSite, items: list[Any], key: Any = None, reverse: Any = False
) -> None:
    items[:] = _sorted(interpreter, site, [items], {"key": key, "reverse": reverse})


def _dict_get(
    interpreter: Interpreter, site: CallSite, table: dict[Any, Any], key: Any, default: Any = None
) -> Any:
    return table.get(interpreter.dict_key(site.node, key), default)


def _dict_pop(
    interpreter: Interpreter, site: CallSite, table: dict[Any, Any], key: Any, default: Any = MISSING
) -> Any:
    key = interpreter.dict_key(site.node, key)
    if key not in table and default is MISSING:
        raise site.error(f"the key {key!r:.60} is not in the dict")
    return table.pop(key, default)


def _dict_setdefault(
    interpreter: Interpreter, site: CallSite, table: dict[Any, Any], key: Any, default: Any = None
) -> Any:
    return table.setdefault(interpreter.dict_key(site.node, key), default)


def _dict_update(
    interpreter: Interpreter, site: CallSite, table: dict[Any, Any], other: Any = MISSING, **extra: Any
) -> None:
    if other is not MISSING:
        _update(interpreter, site, table, other)
    table.update(extra)


def _copied(interpreter: Interpreter, site: CallSite, owner: Any) -> Any:
    interpreter.budget.charge(site.node, len(owner))
    return owner.copy()


def _listed(view: Callable[[dict[Any, Any]], Any]) -> Callable[..., list[Any]]:
    def implementation(interpreter: Interpreter, site: CallSite, table: dict[Any, Any]) -> list[Any]:
        interpreter.budget.charge(site.node, len(table))
        return list(view(table))

    return implementation


def _list_extend(interpreter: Interpreter, site: CallSite, items: list[Any], more: Any) -> None:
    items.extend(interpreter.materialize(site.node, more))


def _list_reverse(interpreter: Interpreter, site: CallSite, items: list[Any]) -> None:
    interpreter.budget.charge(site.node, len(items))
    items.reverse()


# name -> (implementation, fewest and most positional arguments, keyword arguments)
Method = tuple[Callable[..., Any], int, int, tuple[str, ...]]
_LIST_METHODS: dict[str, Method] = {
    "append": (lambda interpreter, site, items, value: items.append(value), 1, 1, ()),
    "extend": (_list_extend, 1, 1, ()),
    "insert": (_list_insert, 2, 2, ()),
    "pop": (_list_pop, 0, 1, ()),
    "index": (_list_index, 1, 1, ()),
    "remove": (_list_remove, 1, 1, ()),
    "count": (_list_count, 1, 1, ()),
    "copy": (_copied, 0, 0, ()),
    "reverse": (_list_reverse, 0, 0, ()),
    "clear": (lambda interpreter, site, items: items.clear(), 0, 0, ()),
    "sort": (_list_sort, 0, 0, ("key", "reverse")),
}
_DICT_METHODS: dict[str, Method] = {
    "items": (_listed(dict.items), 0, 0, ()),
    "keys": (_listed(dict.keys), 0, 0, ()),
    "values": (_listed(dict.values), 0, 0, ()),
    "get": (_dict_get, 1, 2, ()),
    "pop": (_dict_pop, 1, 2, ()),
    "setdefault": (_dict_setdefault, 1, 2, ()),
    "update": (_dict_update, 0, 1, ()),
    "copy": (_copied, 0, 0, ()),
}
