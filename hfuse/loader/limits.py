"""Size limits the loader enforces before it parses, allocates or builds anything.

Every check here is cheap and bounded: the text is scanned once with `tokenize` (which keeps
no recursion of its own) before `ast.parse` sees it, so deeply nested input is refused before
the parser could recurse on it; arithmetic results are bounded before they are computed.
"""

from __future__ import annotations

import ast
import io
import math
import tokenize

from hfuse import settings
from hfuse.loader.source import LONE_SURROGATE, Source

# nvFuser's Int is 64-bit; no extent, index or constant of a definition needs more.
INT_BITS = 63
_OPENERS, _CLOSERS = "([{", ")]}"
_SEPARATORS = frozenset({",", ":", "=", ";", "->", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@="})
_WORD_OPERATORS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "in", "is"})
# The token scan over-estimates depth a little less than twice; this keeps it a pre-check only.
_SCAN_SLACK = 2


def check_text(source: Source) -> None:
    """Length, null bytes, lone surrogates and a cheap nesting estimate, before `ast.parse`."""
    limit = settings.MAX_SCRIPT_CHARS.as_int()
    if len(source.text) > limit:
        raise source.limit_error(
            (1, 1),
            f"the script is {len(source.text)} characters long; the limit is {limit} "
            f"(set {settings.MAX_SCRIPT_CHARS.env} to read longer scripts)",
        )
    null = source.text.find("\0")
    if null >= 0:
        raise source.parse_error(source.position_of(null), "the script contains a null byte; remove it")
    lone = LONE_SURROGATE.search(source.text)
    if lone is not None:
        raise source.parse_error(
            source.position_of(lone.start()),
            f"the script contains a lone surrogate character (U+{ord(lone.group()):04X}), which is not text "
            "and cannot be written as UTF-8; remove it or write the character it was meant to be",
        )
    _check_token_nesting(source)


def _check_token_nesting(source: Source) -> None:
    """Estimate each logical line's expression depth from brackets and operators between separators.

    The estimate bounds what `ast.parse` would build, so a script that nests far past the
    limit is refused here. Tokenizer errors stop the scan: `ast.parse` reports them properly.
    """
    nesting = settings.MAX_NESTING.as_int()
    bound = _SCAN_SLACK * nesting + 8
    operators_per_level = [0]
    total = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source.text).readline):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                operators_per_level, total = [0], 0
                continue
            text = token.string if token.type in (tokenize.OP, tokenize.NAME) else ""
            if token.type == tokenize.OP and text in _OPENERS:
                operators_per_level.append(0)
            elif token.type == tokenize.OP and text in _CLOSERS:
                if len(operators_per_level) > 1:
                    total -= operators_per_level.pop()
            elif text == ",":
                total -= operators_per_level[-1]
                operators_per_level[-1] = 0
            elif (token.type == tokenize.OP and text not in _SEPARATORS) or text in _WORD_OPERATORS:
                operators_per_level[-1] += 1
                total += 1
            if len(operators_per_level) + total > bound:
                line, col = token.start
                raise source.limit_error((line, col + 1), _nesting_message(nesting))
    except (tokenize.TokenError, SyntaxError):
        return


def _nesting_message(nesting: int) -> str:
    return (
        f"expressions here nest deeper than {nesting} levels (brackets, calls, operators); "
        f"simplify the expression or set {settings.MAX_NESTING.env}"
    )


def check_tree_depth(source: Source, tree: ast.AST) -> None:
    """The exact nesting of expression nodes, walked without recursion."""
    nesting = settings.MAX_NESTING.as_int()
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            depth += 1
            if depth > nesting:
                raise source.limit_error(node, _nesting_message(nesting))
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))


def int_fits(value: int) -> bool:
    return -(1 << INT_BITS) <= value < (1 << INT_BITS)


def power_fits(base: int, exponent: int) -> bool:
    """Whether base ** exponent (non-negative ints) stays within 64 bits, decided without computing it."""
    if abs(base) <= 1 or exponent <= 1:
        return True
    return exponent * math.log2(abs(base)) < INT_BITS


def shift_fits(value: int, shift: int) -> bool:
    return value == 0 or shift <= INT_BITS


def too_big_message(what: str) -> str:
    return (
        f"{what} does not fit in 64 bits; fusion definitions use 64-bit integers "
        "(this bound is fixed, no setting changes it)"
    )
