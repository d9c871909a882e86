"""Index arithmetic as Triton source text: linear positions, and the layout algebra's position
arithmetic (`SourceText`), with which codegen maps a result's index to its operands' indices.

Positions are strings (a name, a literal, or a small expression); these helpers skip the `// 1`,
`% n` and `* 0` that cannot matter, so generated index math stays short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

INT32_LIMIT = 2**31 - 1


def is_literal(text: str) -> bool:
    return text.lstrip("-").replace(".", "", 1).isdigit()


def term(text: str) -> str:
    return f"({text})" if text.startswith("-") or " " in text else text


def delinearize(linear: str, extents: Sequence[int]) -> list[str]:
    """Row-major positions over `extents` of a linear position, without `// 1` or `% n` that cannot matter."""
    parts, inner = [], 1
    for k in range(len(extents) - 1, -1, -1):
        if extents[k] == 1:
            parts.append("0")
        else:
            text = linear if inner == 1 else f"{term(linear)} // {inner}"
            if any(e != 1 for e in extents[:k]):
                text = f"{term(text)} % {extents[k]}"
            parts.append(text)
        inner *= extents[k]
    return parts[::-1]


def linearize(dims: Sequence[str], extents: Sequence[int]) -> str:
    terms, inner = [], 1
    for k in range(len(extents) - 1, -1, -1):
        if extents[k] != 1 and dims[k] != "0":
            terms.append(dims[k] if inner == 1 else f"{term(dims[k])} * {inner}")
        inner *= extents[k]
    return " + ".join(reversed(terms)) or "0"


class SourceText:
    """The layout algebra's position arithmetic over Triton source text. `name(text, hint)` binds a
    long expression to a variable (and returns a plain one unchanged)."""

    zero = "0"

    def __init__(self, name: Callable[[str, str], str]) -> None:
        self.name = name

    def affine(self, position: str, step: int, start: int) -> str:
        if position == "0":
            return str(start)
        scaled = position if step == 1 else f"{term(position)} * {step}"
        if start == 0:
            return scaled
        return f"{scaled} + {start}" if start > 0 else f"{scaled} - {-start}"

    def at_least(self, position: str, low: int) -> str:
        return f"({position} >= {low})"

    def below(self, position: str, high: int) -> str:
        return f"({position} < {high})"

    def regroup(self, positions: Sequence[str], extents: Sequence[int], into: Sequence[int]) -> list[str]:
        if len(positions) == 1 and len(into) == 1:
            return list(positions)
        linear = linearize(positions, extents)
        if not is_plain(linear):
            linear = self.name(linear, "ix")
        return delinearize(linear, into)


def is_plain(text: str) -> bool:
    return text.replace("_", "").isalnum() or is_literal(text)
