"""The values a script's names hold while the loader reads it, and what the loader may do with them.

Values are Python numbers, strings, None, lists, tuples and dicts of values, ranges, `DataType`
members, fusion values returned by the frontend (tensors, scalars and vectors, called handles here)
and `Interpreted` objects: names like `torch`, `fd`, `math` or a user function, whose attributes and
calls the loader implements itself from explicit tables.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, NamedTuple

from hfuse.dtypes import DataType
from hfuse.errors import LimitError, ParseError
from hfuse.frontend.handles import Handle, Vector
from hfuse.frontend.records import Like
from hfuse.loader.budget import Budget
from hfuse.loader.limits import int_fits, too_big_message
from hfuse.loader.source import SUPPORTED, Source

NUMBER_TYPES = (bool, int, float, complex)
HANDLE_TYPES = (Handle, Vector)
CONTAINER_TYPES = (list, tuple, dict)
MISSING = object()


class CallSite(NamedTuple):
    """Where an interpreted call happens, to raise located errors from it (a tuple: made for every call)."""

    source: Source
    node: ast.AST
    budget: Budget | None = None

    def error(self, message: str) -> ParseError:
        return self.source.parse_error(self.node, message)

    def limit(self, message: str) -> LimitError:
        return self.source.limit_error(self.node, message)

    def charge(self, steps: int) -> None:
        """Counts work done for this call against the script's step budget."""
        if self.budget is not None:
            self.budget.charge(self.node, steps)


class Interpreted:
    """A name the script may use whose attributes, calls and indexing the loader implements itself."""

    label = "this value"
    missing_attribute_hint = SUPPORTED  # what to do about an attribute the value does not have
    attribute_write_hint = "assign to a name, a tuple of names (T1, T2 = ...) or self.NAME"
    hashable_key = False  # whether it may be a dict key (hashed by identity)

    def attribute(self, name: str) -> Any:
        return MISSING

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        raise site.error(f"{self.label} cannot be called; {SUPPORTED}")

    def item(self, site: CallSite, index: Any) -> Any:
        raise site.error(f"{self.label} cannot be indexed; only lists, tuples and dicts can")

    def operate(self, site: CallSite, symbol: str, other: Any, reflected: bool) -> Any:
        """`self <symbol> other` (`other <symbol> self` when reflected; unary when other is MISSING), or
        MISSING where the operator means nothing for this value."""
        return MISSING

    def set_attribute(self, name: str, value: Any) -> bool:
        """`self.name = value`; whether the value keeps it."""
        return False

    def elements(self) -> list[Any] | None:
        """What `for x in value` walks, or None where the value cannot be walked."""
        return None

    def equals(self, site: CallSite, other: Any, equal: Callable[[Any, Any], bool]) -> Any:
        """`self == other` where the value compares its parts (with `equal`), or MISSING: it equals
        only itself."""
        return MISSING

    def attribute_names(self) -> frozenset[str]:
        """The attributes it has, where they are few enough to suggest one for a misspelt name."""
        return frozenset()

    def shown(self) -> str:
        """What `print` writes for it."""
        return f"<{self.label}>"


class FusionDtype(Interpreted):
    """`t.dtype()` of a fusion tensor: known only once the definition is bound to its inputs, so an op
    may take it as its dtype (`fd.ops.cast(y, dtype=t.dtype())`), but nothing can compare it now."""

    def __init__(self, like: Like):
        self.like = like
        self.label = repr(like)

    def operate(self, site: CallSite, symbol: str, other: Any, reflected: bool) -> Any:
        raise site.error(
            f"{self.label} is known only when the fusion runs with its inputs, so it cannot be compared "
            "or computed with while the definition is read; pass it as an op's dtype="
        )


class TypeValue(Interpreted):
    """A type a script names, for `isinstance(value, T)`."""

    def holds(self, value: Any) -> bool:
        raise NotImplementedError


def is_number(value: Any) -> bool:
    return isinstance(value, NUMBER_TYPES)


def is_handle(value: Any) -> bool:
    """A fusion value returned by the frontend: a tensor, a scalar or a vector of a definition."""
    return isinstance(value, HANDLE_TYPES)


def describe(value: Any) -> str:
    if isinstance(value, Interpreted):
        return value.label
    if is_handle(value):
        return "a fusion value"
    if is_number(value) or value is None or isinstance(value, DataType):
        return repr(value)
    names = {str: "a string", list: "a list", tuple: "a tuple", dict: "a dict", range: "a range"}
    return names.get(type(value), type(value).__name__)


def checked_int(site: CallSite, value: Any) -> Any:
    if isinstance(value, int) and not int_fits(value):
        raise site.limit(too_big_message(f"the integer {_short(value)}"))
    return value


def _short(value: int) -> str:
    if value.bit_length() > 200:
        return f"with {value.bit_length()} bits"
    return str(value)


def truth(site: CallSite, value: Any) -> bool:
    """`if value:`, `not value`, `and` / `or`: plain values only; a fusion value has no truth value."""
    if type(value) is bool:
        return value
    if value is None or isinstance(value, NUMBER_TYPES + (str, range) + CONTAINER_TYPES):
        return bool(value)
    if is_handle(value):
        raise site.error(
            f"{value!r} has no truth value while the fusion is being defined; "
            "use fd.ops.where for a data-dependent choice"
        )
    raise site.error(f"{describe(value)} has no truth value; test a number, a string or a list")


def is_hashable_key(value: Any) -> bool:
    """Keys a script's dicts may use: numbers, strings, None, DataType members and tuples of them."""
    if isinstance(value, tuple):
        return all(is_hashable_key(item) for item in value)
    if isinstance(value, Interpreted):
        return value.hashable_key
    return value is None or isinstance(value, NUMBER_TYPES + (str, DataType))


def show(value: Any, room: int, quoted: bool = False) -> str:
    """What `print` writes for a value, cut a little past `room` characters; nested containers deeper
    than MAX_SHOWN_DEPTH (or containing themselves) show as `...`."""
    parts: list[str] = []
    _show(value, quoted, parts, [room], set())
    return "".join(parts)


MAX_SHOWN_DEPTH = 16


def _show(value: Any, quoted: bool, parts: list[str], room: list[int], open_ids: set[int]) -> None:
    if room[0] <= 0:
        return
    if isinstance(value, list | tuple | dict):
        if id(value) in open_ids or len(open_ids) >= MAX_SHOWN_DEPTH:
            _put("...", parts, room)
            return
        open_ids.add(id(value))
        opener, closer = {list: "[]", tuple: "()", dict: "{}"}[type(value)]
        _put(opener, parts, room)
        items = value.items() if isinstance(value, dict) else value
        for position, item in enumerate(items):
            if room[0] <= 0:
                break
            if position:
                _put(", ", parts, room)
            if isinstance(value, dict):
                _show(item[0], True, parts, room, open_ids)
                _put(": ", parts, room)
                item = item[1]
            _show(item, True, parts, room, open_ids)
        if isinstance(value, tuple) and len(value) == 1:
            _put(",", parts, room)
        _put(closer, parts, room)
        open_ids.discard(id(value))
        return
    if isinstance(value, str):
        text = repr(value) if quoted else value
    elif isinstance(value, Interpreted):
        text = value.shown()
    elif is_handle(value) or is_number(value) or value is None or isinstance(value, DataType | range):
        text = repr(value)
    else:
        text = f"<{describe(value)}>"
    _put(text, parts, room)


def _put(text: str, parts: list[str], room: list[int]) -> None:
    parts.append(text[: max(room[0], 0)])
    room[0] -= len(text)
