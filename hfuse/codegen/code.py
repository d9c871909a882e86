"""A kernel body under construction: named lines placed in scopes, with repeated expressions shared.

Every line is `name = expression`. The body knows which iteration axes each name depends on (its
`deps`), so a line goes to the outermost scope where all of its inputs exist: values that do not
depend on a loop's column axis are hoisted out of the loop (a row statistic used inside the last
pass of a looped normalization is computed once, before that loop). A loop's lines are spliced
into the top scope when the loop closes, so a loop opened while another is being written lands
before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# names read by an expression: not attributes (`tl.load`) and not keyword arguments (`mask=`)
_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?!\w)(?!\s*=[^=])")
_PLAIN = re.compile(r"-?[A-Za-z0-9_.]+")
_DEFINITION = re.compile(r"\s*([A-Za-z_]\w*) = ")


@dataclass(slots=True)
class Scope:
    """The top of a program, or one loop over column blocks (identified by its axis tag)."""

    axis: str | None
    indent: str
    lines: list[str] = field(default_factory=list)
    known: dict[str, str] = field(default_factory=dict)  # expression text -> the name holding it
    memo: dict[Any, Any] = field(default_factory=dict)  # lowered values, owned by lower.py
    comments: set[str] = field(default_factory=set)


class Body:
    def __init__(self, indent: str = "") -> None:
        self.top = Scope(None, indent)
        self._loops: dict[str, Scope] = {}
        self.deps: dict[str, frozenset[str]] = {}
        self._taken: set[str] = set()
        self._optional: set[str] = set()  # names whose line is left out when no other line reads them

    # names
    def fresh(self, hint: str) -> str:
        name, n = hint, 0
        while name in self._taken:
            n += 1
            name = f"{hint}_{n}"
        self._taken.add(name)
        return name

    def reserve(self, *names: str) -> None:
        self._taken.update(names)

    def deps_of(self, text: str) -> frozenset[str]:
        found: set[str] = set()
        for word in _IDENTIFIER.findall(text):
            found |= self.deps.get(word, frozenset())
        return frozenset(found)

    # scopes
    def scope_for(self, deps: frozenset[str]) -> Scope:
        loop_axes = [axis for axis in deps if axis in self._loops]
        if not loop_axes:
            return self.top
        assert len(loop_axes) == 1, f"a value depends on two loops: {loop_axes}"
        return self._loops[loop_axes[0]]

    def open_scopes(self) -> list[Scope]:
        return [self.top, *self._loops.values()]

    def open_loop(self, axis: str) -> Scope:
        """A loop whose header is written when it closes (where it lands is known then)."""
        scope = Scope(axis, self.top.indent + "    ")
        self._loops[axis] = scope
        return scope

    def close_loop(self, scope: Scope, header: str, first: Sequence[str] = ()) -> None:
        """Ends the loop: `header`, then the lines `first` at the top of its body, then the lines written in
        it. Loops land in the order they close."""
        del self._loops[scope.axis]
        self.top.lines.append(self.top.indent + header)
        self.top.lines.extend(scope.indent + line for line in first)
        self.top.lines.extend(scope.lines)

    # lines
    def define(
        self, name: str, text: str, deps: frozenset[str], scope: Scope | None = None, optional: bool = False
    ) -> str:
        """An iteration variable or accumulator with the axes it stands for; with `optional`, its line is
        left out of the kernel when no other line reads it."""
        self.reserve(name)
        scope = scope or self.scope_for(deps)
        scope.lines.append(f"{scope.indent}{name} = {text}")
        self.deps[name] = deps
        if optional:
            self._optional.add(name)
        return name

    def assign(self, text: str, hint: str, comment: str | None = None) -> str:
        """`hint = text` in the scope its inputs allow; the name of an equal earlier line if any."""
        if _PLAIN.fullmatch(text):
            return text
        deps = self.deps_of(text)
        scope = self.scope_for(deps)
        if text in scope.known:
            return scope.known[text]
        if comment is not None:
            self.comment(comment, scope)
        name = self.fresh(hint)
        scope.lines.append(f"{scope.indent}{name} = {text}")
        scope.known[text] = name
        self.deps[name] = deps
        return name

    def optional(self, text: str, hint: str) -> str:
        """`assign`, but the line is left out of the kernel when no other line reads the name."""
        name = self.assign(text, hint)
        self._optional.add(name)
        return name

    def statement(self, text: str, scope: Scope) -> None:
        scope.lines.append(scope.indent + text)

    def comment(self, text: str, scope: Scope) -> None:
        if text not in scope.comments:
            scope.comments.add(text)
            scope.lines.append(f"{scope.indent}# {text}")

    def text(self) -> list[str]:
        assert not self._loops, "a loop was left open"
        lines = list(self.top.lines)
        while unread := self._unread_optional(lines):
            lines = [line for line in lines if _defined_by(line) not in unread]
        return lines

    def _unread_optional(self, lines: list[str]) -> set[str]:
        read: set[str] = set()
        for line in lines:
            defined = _defined_by(line)
            expression = line.split("=", 1)[1] if defined else line
            read.update(_IDENTIFIER.findall(expression))
        return {line_name for line in lines if (line_name := _defined_by(line)) in self._optional} - read


def _defined_by(line: str) -> str | None:
    """The name a `name = expression` line defines."""
    found = _DEFINITION.match(line)
    return found.group(1) if found else None
