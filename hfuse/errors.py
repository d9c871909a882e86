"""One error family. Every message says where, what, and what to do."""

from __future__ import annotations


class HfuseError(Exception):
    """Base class of every error hfuse reports to a user."""


class DefinitionError(HfuseError):
    """A fusion definition is ill-formed: wrong operand types, shapes that do not fit, bad attributes."""

    def __init__(
        self,
        message: str,
        *,
        expr: str | None = None,
        loc: tuple[int, int] | None = None,
        source_line: str = "",
    ):
        self.reason = message
        self.expr = expr
        self.loc = loc
        self.source_line = source_line
        where = []
        if loc is not None:
            where.append(f"line {loc[0]}, column {loc[1]}")
        if expr is not None:
            where.append(f"in {expr}")
        prefix = f"{', '.join(where)}: " if where else ""
        text = prefix + message
        if source_line and loc is not None:
            text += f"\n    {source_line}\n    {' ' * max(loc[1] - 1, 0)}^"
        super().__init__(text)


class ParseError(HfuseError):
    """A script uses something outside the fusion-definition subset that hfuse interprets."""

    def __init__(self, message: str, *, line: int, col: int, source_line: str = ""):
        self.line = line
        self.col = col
        self.source_line = source_line
        self.reason = message
        text = f"line {line}, column {col}: {message}"
        if source_line:
            caret = " " * max(col - 1, 0) + "^"
            text += f"\n    {source_line}\n    {caret}"
        super().__init__(text)


class LimitError(HfuseError):
    """An input is larger than a configured limit. The message names the limit and its setting."""


class UnsupportedError(HfuseError):
    """A valid definition uses something hfuse cannot compile or run yet."""


class ValidationError(HfuseError):
    """Generated kernels disagreed with the torch reference."""


class KernelError(HfuseError):
    """A generated kernel failed to compile or launch."""


class LinkError(HfuseError):
    """A shared link is damaged, unknown, or made by a newer format."""
