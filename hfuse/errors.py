"""One error family. Every message says where, what, and what to do.

Every error holds its `reason` (what is wrong and what to do), and where they are known its `loc`
(the line and column of the script, with the text of that line) and its `expr` (the IR expr it is
about, as text). The message is made from these three in one place, `HfuseError.format_message`:

    line 7, column 9, in T2 = add(T0, T1): shapes [4] and [5] do not broadcast; ...
        T2 = fd.ops.add(T0, T1)
        ^

Readers (the app, the run service) use `loc` and `expr` and never parse the message.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A place in a script: line and column, both counted from 1, and the line's text ("" when not known)."""

    line: int
    column: int
    source_line: str = ""

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}"


def loc_of(position: tuple[int, int] | None) -> Loc | None:
    """The Loc of a recorded (line, column) position, without its text; None where none was recorded."""
    return None if position is None else Loc(*position)


class HfuseError(Exception):
    """Base class of every error hfuse reports to a user."""

    expr_wording = "in {}"  # how the message names the error's expr

    def __init__(self, reason: str, *, loc: Loc | None = None, expr: str | None = None):
        self.reason = reason
        self.loc = loc
        self.expr = expr
        super().__init__(self.format_message(reason, loc, expr))

    @classmethod
    def format_message(cls, reason: str, loc: Loc | None, expr: str | None) -> str:
        """`line L, column C, in EXPR: reason`, then the quoted source line with a caret under the column."""
        where = [str(loc)] if loc is not None else []
        if expr is not None:
            where.append(cls.expr_wording.format(expr))
        text = f"{', '.join(where)}: {reason}" if where else reason
        if loc is not None and loc.source_line:
            text += f"\n    {loc.source_line}\n    {' ' * max(loc.column - 1, 0)}^"
        return text


class DefinitionError(HfuseError):
    """A fusion definition is ill-formed: wrong operand types, shapes that do not fit, bad attributes."""


class ParseError(HfuseError):
    """A script uses something outside the fusion-definition subset that hfuse interprets."""


class LimitError(HfuseError):
    """An input is larger than a configured limit. The message names the limit and its setting."""


class UnsupportedError(HfuseError):
    """A valid definition uses something hfuse cannot compile or run yet.

    Raised while generating a kernel, its expr is the one being generated."""

    expr_wording = "generating `{}`"


class ValidationError(HfuseError):
    """Generated kernels disagreed with the torch reference."""


class KernelError(HfuseError):
    """A generated kernel failed to compile or launch; its expr is the one being generated."""

    expr_wording = "generating `{}`"


class LinkError(HfuseError):
    """A shared link is damaged, unknown, or made by a newer format."""


class LinkLimitError(LinkError, LimitError):
    """A shared link holds more than a configured limit lets this server open."""


class MergeError(HfuseError):
    """A merge of two segments that was asked for is not legal; the reason is the segmenter's verdict."""
