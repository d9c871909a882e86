"""Which lines of a generated kernel compute which IR value, read back from the source.

Code generation writes each expression's IR line as a comment (`# T3 = fd.ops.sub(T0, T2)`) above the
lines that compute it, and names each value's block after the value (`t3 = ...`, `t3_ptr`). A value's
lines are its comment, the lines up to the next comment, and every other line that uses its block or
pointer by name (its load, its store, the expressions that read it).
"""

from __future__ import annotations

import re

_COMPUTES = re.compile(r"^\s*# (\w+)(?:, \w+)* = fd\.")


def value_lines(source: str, value: str) -> list[int]:
    """The 1-based lines of `source` that compute or use the IR value `value` (T3, or S1)."""
    lines = source.splitlines()
    token = re.compile(rf"\b{re.escape(value.lower())}(_ptr)?\b")
    found: set[int] = set()
    computing = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("#"):
            match = _COMPUTES.match(line)
            computing = match is not None and value in _names(stripped)
            if computing:
                found.add(number)
            continue
        if not stripped or stripped.startswith(("def ", "@")):
            computing = False
            continue
        if computing or token.search(line):
            found.add(number)
    return sorted(found)


def computed_values(source: str) -> list[str]:
    """The IR values whose computation a kernel's source comments, in the order it computes them."""
    names: list[str] = []
    for line in source.splitlines():
        if _COMPUTES.match(line):
            names.extend(n for n in _names(line.strip()) if n not in names)
    return names


def _names(comment: str) -> list[str]:
    """`# T3, T4 = fd.ops.var_mean(...)` -> ["T3", "T4"]."""
    targets = comment.removeprefix("#").split("=", 1)[0]
    return [name.strip() for name in targets.split(",")]
