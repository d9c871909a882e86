"""The layouts nvFuser and Thunder print, recognized so that their output pastes unchanged.

- nvFuser's error message wraps its repro script in prose and a ```python fence; when the pasted
  text is not Python as a whole, only the fenced lines are read.
- `NVFUSER_DUMP=python_definition_segments` prints `Python definition for segmented group N:`
  before each segment's definition; those lines are skipped and name the segments.
- `NVFUSER_DUMP=python_definition` prints a bare `def nvfuser_fusion_idN(fd : FusionDefinition)`.
- Thunder's nvFuser repro is nvFuser's repro script followed by a docstring holding the Thunder
  trace of the fusion (`[t2] = nvFusion0(t0, t1)` ...).

Skipped lines are blanked rather than removed, so every line number is that of the pasted text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

SCRIPT = "fusion definition script"
ERROR_REPRO = "nvFuser error repro"
DEFINITION_DUMP = "nvFuser python_definition dump"
THUNDER_REPRO = "Thunder repro"
TEST_METHOD = "nvFuser test method"

_GROUP_HEADER = re.compile(r"^Python definition for segmented group (\d+):\s*$")
_FENCE_START = re.compile(r"^\s*```\s*(python|py)\s*$")
_FENCE_END = re.compile(r"^\s*```")
_REPRO_HEADER = re.compile(
    r"^#[#\s]*(CUDA devices:|torch version:|cuda version:|nvfuser version:)", re.MULTILINE
)
_THUNDER_TRACE = re.compile(r"\bnvFusion\d+\(")


@dataclass(frozen=True, slots=True)
class Prepared:
    """The text the parser reads: the pasted text with the lines that are not Python blanked."""

    text: str
    groups: dict[int, int]  # line of each `Python definition for segmented group N:` -> N
    fenced: bool  # only the fenced block of an error message is read


@dataclass(frozen=True, slots=True)
class Segment:
    """One of several definitions in a script: a segments dump's definition function and the top-level
    statements that go with it, or one of a script's `with FusionDefinition(...)` blocks."""

    label: str
    definition: ast.FunctionDef | ast.With
    statements: tuple[ast.stmt, ...]


def prepare(text: str) -> Prepared:
    lines = text.split("\n")
    groups = {}
    for number, line in enumerate(lines, start=1):
        header = _GROUP_HEADER.match(line)
        if header:
            groups[number] = int(header.group(1))
            lines[number - 1] = ""
    return Prepared("\n".join(lines), groups, fenced=False)


def fenced(prepared: Prepared) -> Prepared | None:
    """Only the first ```python block of the text, where there is one."""
    lines = prepared.text.split("\n")
    start = next((i for i, line in enumerate(lines) if _FENCE_START.match(line)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _FENCE_END.match(lines[i])), len(lines))
    kept = [line if start < i < end else "" for i, line in enumerate(lines)]
    return Prepared("\n".join(kept), prepared.groups, fenced=True)


def takes_fd_only(node: ast.FunctionDef) -> bool:
    """`def nvfuser_fusion_id0(fd : FusionDefinition) -> None :` and the like: called with fd alone,
    its first parameter named fd or annotated FusionDefinition."""
    params = node.args
    positional = [*params.posonlyargs, *params.args]
    if not positional or len(positional) - len(params.defaults) > 1 or None in params.kw_defaults:
        return False
    first = positional[0]
    annotation = ast.unparse(first.annotation) if first.annotation is not None else ""
    return first.arg == "fd" or annotation.split(".")[-1] == "FusionDefinition"


def definition_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """Top-level functions that could be a whole definition, for a script without a definition block."""
    return [s for s in tree.body if isinstance(s, ast.FunctionDef) and takes_fd_only(s)]


def segments(tree: ast.Module, prepared: Prepared) -> list[Segment]:
    """The definitions of a script that holds several: the segments of a `python_definition_segments`
    dump (several definition functions and no definition block), each with the statements up to the
    next, or a script's top-level definition blocks, each alone (the statements around them are
    shared); empty for a script of one definition."""
    blocks = [s for s in tree.body if isinstance(s, ast.With)]
    if len(blocks) > 1:
        return [Segment(f"definition {k + 1} (line {b.lineno})", b, (b,)) for k, b in enumerate(blocks)]
    functions = definition_functions(tree)
    nested_blocks = any(isinstance(node, ast.With | ast.ClassDef) for node in ast.walk(tree))
    if len(functions) < 2 or nested_blocks:
        return []
    starts = [tree.body.index(function) for function in functions] + [len(tree.body)]
    found = []
    previous_line = 0
    for position, function in enumerate(functions):
        headers = [g for line, g in prepared.groups.items() if previous_line < line < function.lineno]
        label = f"segmented group {headers[-1]}" if headers else function.name
        statements = tuple(tree.body[starts[position] : starts[position + 1]])
        found.append(Segment(label, function, statements))
        previous_line = function.end_lineno or function.lineno
    return found


def recognise(
    prepared: Prepared,
    tree: ast.Module,
    found: list[Segment],
    definitions: int,
    lone_function: bool,
    test_method: bool = False,
) -> str:
    """What produced the script, in words, for `Script.format`; `definitions` counts those it holds."""
    if test_method:
        return TEST_METHOD + (f" ({definitions} definitions)" if definitions > 1 else "")
    if definitions > 1 and not (found and isinstance(found[0].definition, ast.FunctionDef)):
        return f"{SCRIPT} ({definitions} definitions)"
    if found:
        return f"nvFuser segments dump ({len(found)} segments)"
    trace = any(
        isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Constant)
        and isinstance(s.value.value, str)
        and _THUNDER_TRACE.search(s.value.value)
        for s in tree.body
    )
    if trace:
        return THUNDER_REPRO
    if prepared.fenced or _REPRO_HEADER.search(prepared.text):
        return ERROR_REPRO
    return DEFINITION_DUMP if lone_function else SCRIPT
