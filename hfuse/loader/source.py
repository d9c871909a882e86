"""The text of a script being loaded, a few shapes of its syntax tree, and the located errors the
loader raises about it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TypeVar

from hfuse.errors import HfuseError, LimitError, Loc, ParseError

SUPPORTED = (
    "only imports of nvfuser / nvfuser_direct / hfuse / torch / math / functools / itertools / typing / "
    "dataclasses / enum, "
    "fd.define_*, fd.from_pytorch, fd.ops.*, fd.add_output, Python's functions, loops, conditions, "
    "containers and operators, and torch tensor constructors for the inputs are read"
)
_LONGEST_QUOTE = 200
# Halves of UTF-16 pairs standing alone: Python strings can hold them, but they are not text (no UTF-8).
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
E = TypeVar("E", bound=HfuseError)


def position(node: ast.AST) -> tuple[int, int]:
    """(line, column) of a node, both counted from 1."""
    return getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1


@dataclass(frozen=True, slots=True)
class Source:
    text: str
    lines: tuple[str, ...]

    @staticmethod
    def of(text: str) -> Source:
        return Source(text, tuple(text.splitlines()))

    def line(self, lineno: int) -> str:
        return self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""

    def position_of(self, index: int) -> tuple[int, int]:
        """(line, column), both counted from 1, of the character at `index` of the text."""
        line = self.text.count("\n", 0, index) + 1
        return line, index - (self.text.rfind("\n", 0, index) + 1) + 1

    def _quoted_line(self, line: int, col: int) -> str:
        """The source line to quote under an error; long lines are cut (and dropped if the column is cut).
        Null bytes and lone surrogates are shown as symbols, so that the message is printable text."""
        text = self.line(line).replace("\0", "\N{SYMBOL FOR NULL}")
        text = LONE_SURROGATE.sub("\N{REPLACEMENT CHARACTER}", text)
        if len(text) <= _LONGEST_QUOTE:
            return text
        return text[:_LONGEST_QUOTE] + " ..." if col <= _LONGEST_QUOTE else ""

    def loc(self, at: ast.AST | tuple[int, int]) -> Loc:
        """The Loc of a node or a (line, column) position, quoting its line."""
        line, col = at if isinstance(at, tuple) else position(at)
        return Loc(line, col, self._quoted_line(line, col))

    def parse_error(self, at: ast.AST | tuple[int, int], message: str) -> ParseError:
        return ParseError(message, loc=self.loc(at))

    def limit_error(self, at: ast.AST | tuple[int, int], message: str) -> LimitError:
        return LimitError(message, loc=self.loc(at))

    def placed(self, err: E, at: ast.AST | tuple[int, int]) -> E:
        """The same error placed in this script, quoting its line: at its own line and column when it has
        them (the frontend records them without the text), else at `at`."""
        if err.loc is not None and err.loc.source_line:
            return err
        where = (err.loc.line, err.loc.column) if err.loc is not None else at
        return type(err)(err.reason, loc=self.loc(where), expr=err.expr)


def is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def dotted_name(node: ast.expr) -> str:
    """`torch.testing.assert_close` for an attribute chain, read from the tree (never looked up)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "(...)")
    return ".".join(reversed(parts))
