"""The standard modules a script may import besides torch and nvFuser: math, functools, itertools, typing
(and dataclasses and enum, whose names are those of `classes`).

Only the names in the tables below exist. `math` functions take numbers and give numbers (whole
results bounded to 64 bits like every integer of a script); `functools` gives `partial` and `reduce`;
`itertools` gives `product`, `chain`, `permutations` and `combinations`, as lists paid for before they
are made; `typing`'s names only annotate, and annotations are never evaluated.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hfuse.loader.classes import class_module
from hfuse.loader.functions import make_partial
from hfuse.loader.limits import int_fits, too_big_message
from hfuse.loader.values import MISSING, CallSite, Interpreted, checked_int, describe, is_number

if TYPE_CHECKING:
    from hfuse.loader.statements import Interpreter

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}
# functions of numbers: name -> (function, fewest arguments, most arguments)
MATH_FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    **{
        name: (getattr(math, name), 1, 1)
        for name in (
            "sqrt", "exp", "exp2", "expm1", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
            "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "gamma", "lgamma",
            "fabs", "ceil", "floor", "trunc", "isqrt", "isinf", "isnan", "isfinite", "degrees", "radians",
        )
        if hasattr(math, name)
    },
    "log": (math.log, 1, 2),
    "pow": (math.pow, 2, 2),
    "atan2": (math.atan2, 2, 2),
    "copysign": (math.copysign, 2, 2),
    "fmod": (math.fmod, 2, 2),
    "hypot": (math.hypot, 1, 8),
    "gcd": (math.gcd, 0, 8),
    "lcm": (math.lcm, 0, 8),
    "isclose": (math.isclose, 2, 2),
    "factorial": (math.factorial, 1, 1),
}  # fmt: skip
_LARGEST_FACTORIAL = 20  # 21! does not fit in 64 bits


class MathFunction(Interpreted):
    def __init__(self, interpreter: Interpreter, name: str):
        self.interpreter = interpreter
        self.name = name
        self.label = f"math.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self.name in ("prod", "fsum"):
            return self._fold(site, args, kwargs)
        function, fewest, most = MATH_FUNCTIONS[self.name]
        allowed = {"rel_tol", "abs_tol"} if self.name == "isclose" else set()
        if not fewest <= len(args) <= most or not set(kwargs) <= allowed:
            raise site.error(f"{self.label}() takes {fewest} to {most} numbers")
        for value in [*args, *kwargs.values()]:
            if not is_number(value) or isinstance(value, complex):
                raise site.error(f"{self.label}() takes numbers, not {describe(value)}")
        if self.name == "factorial" and isinstance(args[0], int) and args[0] > _LARGEST_FACTORIAL:
            raise site.limit(too_big_message(f"math.factorial({args[0]})"))
        try:
            return checked_int(site, function(*args, **kwargs))
        except OverflowError:
            raise site.limit(f"{self.label}: the result overflows a 64-bit float") from None
        except (ValueError, TypeError) as err:
            raise site.error(f"{self.label}{tuple(args)!r:.60} has no value: {err}") from None

    def _fold(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if len(args) != 1 or set(kwargs) - {"start"}:
            raise site.error(f"{self.label}() takes a list of numbers")
        total: Any = kwargs.get("start", 1) if self.name == "prod" else 0.0
        for value in self.interpreter.iterate(site.node, args[0]):
            if not is_number(value) or isinstance(value, complex):
                raise site.error(f"{self.label}() takes numbers, not {describe(value)}")
            total = total * value if self.name == "prod" else total + value
            if isinstance(total, int) and not int_fits(total):
                raise site.limit(too_big_message(f"the product {self.label}(...)"))
        if isinstance(total, float) and math.isinf(total) and self.name == "prod":
            raise site.limit(f"{self.label}: the result overflows a 64-bit float")
        return total


class MathModule(Interpreted):
    label = "math"

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter

    def attribute(self, name: str) -> Any:
        if name in MATH_CONSTANTS:
            return MATH_CONSTANTS[name]
        if name in MATH_FUNCTIONS or name in ("prod", "fsum"):
            return MathFunction(self.interpreter, name)
        return MISSING


class _FunctoolsFunction(Interpreted):
    def __init__(self, interpreter: Interpreter, name: str):
        self.interpreter = interpreter
        self.name = name
        self.label = f"functools.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self.name == "partial":
            return make_partial(site, args, kwargs)
        if kwargs or len(args) not in (2, 3) or not isinstance(args[0], Interpreted):
            raise site.error("functools.reduce(function, iterable[, initial]) takes a function and a list")
        items = self.interpreter.iterate(site.node, args[1])
        total = args[2] if len(args) == 3 else next(items, MISSING)
        if total is MISSING:
            raise site.error("functools.reduce() of an empty list needs an initial value")
        for item in items:
            total = args[0].call(site, [total, item], {})
        return total


class FunctoolsModule(Interpreted):
    label = "functools"

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter

    def attribute(self, name: str) -> Any:
        return _FunctoolsFunction(self.interpreter, name) if name in ("partial", "reduce") else MISSING


# how many tuples each makes of n items taken r at a time
_ARRANGEMENTS: dict[str, Callable[[int, int], int]] = {"permutations": math.perm, "combinations": math.comb}
_ITERTOOLS_FUNCTIONS = ("product", "chain", *_ARRANGEMENTS)


class _ItertoolsFunction(Interpreted):
    def __init__(self, interpreter: Interpreter, name: str):
        self.interpreter = interpreter
        self.name = name
        self.label = f"itertools.{name}"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
        if self.name in _ARRANGEMENTS:
            return self._arrangements(site, args, kwargs)
        allowed = {"repeat"} if self.name == "product" else set()
        repeat = kwargs.get("repeat", 1)
        if set(kwargs) - allowed or not isinstance(repeat, int) or repeat < 0:
            raise site.error(f"{self.label}() takes lists (and product a whole-number repeat=)")
        lists = [self.interpreter.materialize(site.node, a) for a in args]
        if self.name == "chain":
            site.charge(sum(len(items) for items in lists))
            return [item for items in lists for item in items]
        sizes = [len(items) for items in lists] * repeat
        if 0 not in sizes and sum(math.log2(n) for n in sizes) > math.log2(self.interpreter.budget.max_steps):
            raise self.interpreter.budget.exhausted(site.node)
        site.charge(math.prod(sizes) * max(len(sizes), 1))
        return list(itertools.product(*lists, repeat=repeat))

    def _arrangements(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
        """`permutations(items, r=None)` and `combinations(items, r)`."""
        given = [*args, *kwargs.values()]
        r_needed = self.name == "combinations"
        if set(kwargs) - {"r"} or not (1 + r_needed <= len(given) <= 2):
            raise site.error(f"{self.label}() takes a list and {'a' if r_needed else 'an optional'} length r")
        items = self.interpreter.materialize(site.node, given[0])
        r = given[1] if len(given) == 2 and given[1] is not None else len(items)
        if not isinstance(r, int) or isinstance(r, bool) or r < 0:
            raise site.error(f"{self.label}(): r must be a whole number >= 0, not {describe(r)}")
        count = _ARRANGEMENTS[self.name](len(items), r)
        if count > self.interpreter.budget.max_steps:
            raise self.interpreter.budget.exhausted(site.node)
        site.charge(count * max(r, 1))
        return list(getattr(itertools, self.name)(items, r))


class ItertoolsModule(Interpreted):
    label = "itertools"

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter

    def attribute(self, name: str) -> Any:
        return _ItertoolsFunction(self.interpreter, name) if name in _ITERTOOLS_FUNCTIONS else MISSING


class TypingName(Interpreted):
    """A name of `typing` (List, Optional, ...): scripts only annotate with them."""

    def __init__(self, name: str):
        self.label = f"typing.{name}"


class TypingModule(Interpreted):
    label = "typing"

    def __init__(self, interpreter: Interpreter):
        self.interpreter = interpreter

    def attribute(self, name: str) -> Any:
        return TypingName(name)


def standard_module(interpreter: Interpreter, name: str) -> Interpreted | None:
    """The module a script may import by this name, or None."""
    modules: dict[str, Callable[[Interpreter], Interpreted]] = {
        "math": MathModule,
        "functools": FunctoolsModule,
        "itertools": ItertoolsModule,
        "typing": TypingModule,
    }
    return modules[name](interpreter) if name in modules else class_module(name)
