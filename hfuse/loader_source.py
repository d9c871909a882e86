"""The text of a script being loaded, and the located errors the loader raises about it."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from hfuse.errors import LimitError, ParseError

SUPPORTED = (
    "only imports of nvfuser / nvfuser_direct / hfuse / torch, fd.define_*, fd.from_pytorch, fd.ops.*, "
    "fd.add_output, Python operators on fusion values and numbers, and torch tensor constructors in "
    "`inputs = [...]` are read"
)


_LONGEST_QUOTE = 200


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

    def quoted_line(self, line: int, col: int) -> str:
        """The source line to quote under an error; long lines are cut (and dropped if the column is cut)."""
        text = self.line(line).replace("\0", "\N{SYMBOL FOR NULL}")
        if len(text) <= _LONGEST_QUOTE:
            return text
        return text[:_LONGEST_QUOTE] + " ..." if col <= _LONGEST_QUOTE else ""

    def parse_error(self, at: ast.AST | tuple[int, int], message: str) -> ParseError:
        line, col = at if isinstance(at, tuple) else position(at)
        return ParseError(message, line=line, col=col, source_line=self.quoted_line(line, col))

    def limit_error(self, at: ast.AST | tuple[int, int], message: str) -> LimitError:
        line, col = at if isinstance(at, tuple) else position(at)
        text = f"line {line}, column {col}: {message}"
        quoted = self.quoted_line(line, col)
        if quoted:
            text += f"\n    {quoted}\n    {' ' * (col - 1)}^"
        return LimitError(text)
