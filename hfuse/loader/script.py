"""`hfuse.load`: reads a fusion-definition script without running it.

The text is checked against the size limits, the lines nvFuser prints around its scripts are set
aside (`formats`), the rest is parsed with `ast` and interpreted (`reader`, over the Python subset
of `statements` and `interpreter`) within a step budget and a call-depth limit. The script's
inputs are made on the meta device first; the definition is built from those before anything is
allocated. Nothing is executed, evaluated or imported; anything outside the subset is a located
ParseError.
"""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass, field
from typing import Any

import torch

from hfuse import settings
from hfuse.errors import DefinitionError, LimitError, Loc, ParseError, UnsupportedError
from hfuse.frontend import FusionDefinition
from hfuse.frontend.binding import EXAMPLE_EXTENT
from hfuse.ir import Fusion
from hfuse.loader import formats
from hfuse.loader.budget import Budget
from hfuse.loader.definition_runs import choice_error
from hfuse.loader.exceptions import ScriptRaised
from hfuse.loader.inputs import materialize, meta_twins, random_inputs
from hfuse.loader.limits import check_text, check_tree_depth
from hfuse.loader.reader import ScriptReader
from hfuse.loader.source import Source, position


@dataclass(frozen=True, slots=True)
class Script:
    """A loaded script: its text, the definition it records, its inputs (one per input of the Fusion, a
    vector's list spread, on the chosen device), the Fusion.

    `format` says what produced the text (formats.SCRIPT, ERROR_REPRO, DEFINITION_DUMP, THUNDER_REPRO,
    "nvFuser segments dump (N segments)" or "fusion definition script (N definitions)"); `printed` is
    what its print() calls wrote, in the order the loader ran them (a script's one top-level definition
    block after the rest); `segments` names the definitions of a segments dump, of a script of several
    definition blocks or of a block run several times, in a loop or a function called again (empty for
    any other script), `segment` the one loaded; `names` maps a fusion value to the script's
    variable for it (`q` for T7, the first of the shallowest call that held it), where the two differ.
    """

    text: str
    fd: FusionDefinition
    inputs: list[Any]
    fusion: Fusion
    format: str = formats.SCRIPT
    printed: str = ""
    segments: tuple[str, ...] = ()
    segment: int = 0
    names: dict[str, str] = field(default_factory=dict)  # a fusion value -> the script's variable for it
    # what the reader chose for the script: the sizes of a definition it gives none, a parametrized test's
    # parameters, the parts of a test expecting an error it passed over
    note: str = ""


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def load(text: str, device: str | torch.device | None = None, segment: int | None = None) -> Script:
    """Reads a fusion-definition script; the script's 'cuda' / 'cuda:N' tensors are made on `device`.

    `device="meta"` builds the Fusion from shapes alone: no input holds data. For a segments dump, a
    script of several definition blocks or one whose block runs several times, `segment` picks the
    definition to load (the first by default; a block's runs are counted in the order they happen).
    """
    if not isinstance(text, str):
        raise ParseError(f"a script is text, not {type(text).__name__}", loc=Loc(1, 1))
    target = _target_device(device)
    source = Source.of(_without_common_indent(text))
    check_text(source)
    prepared, tree = _parse(source)
    check_tree_depth(source, tree)
    found = formats.segments(tree, prepared)
    # without fixed segments, the definitions are counted as the script runs them
    index = _segment_index(segment, len(found) if found else None)
    reader = ScriptReader(source, Budget(source))
    try:
        fd, inputs = reader.read(tree, found, found[index] if found else None, index)
    except ScriptRaised as raised:
        raise raised.error from None
    except RecursionError:
        raise source.limit_error(
            reader.current,
            f"the script nests too deeply to read; simplify it or lower {settings.MAX_NESTING.env}",
        ) from None
    # Errors of binding without a place of their own concern the inputs list, or else the definition.
    fallback = position(reader.inputs_node or reader.definition_node)
    try:
        if inputs is None:
            fusion, sizes = _fusion_without_inputs(fd)
            real_inputs = random_inputs(fusion, target)
        else:
            sizes = ""
            fd.fusion(meta_twins(inputs))  # a dry build: every definition and size error before allocating
            real_inputs = fd.complete_inputs(materialize(inputs, target))  # with a drawn seed
            fusion = fd.fusion(real_inputs)
    except (DefinitionError, LimitError) as err:
        raise source.placed(err, fallback) from None
    runs = reader.runs.labels
    labels = tuple(s.label for s in found) or (tuple(runs) if len(runs) > 1 else ())
    lone = reader.lone_function is not None
    layout = formats.recognise(prepared, tree, found, len(labels), lone, reader.pasted_test is not None)
    return Script(
        text,
        fd,
        real_inputs,
        fusion,
        layout,
        "".join(reader.printed),
        labels,
        index,
        reader.value_names,
        "; ".join([*reader.notes, sizes] if sizes else reader.notes),
    )


def _without_common_indent(text: str) -> str:
    """A method pasted from a test class is indented as a whole: read as written at the top level (the
    indent of its first line of code taken off every line that has it; comments may stand anywhere)."""
    lines = text.split("\n")
    first = next((line for line in lines if line.strip() and not line.lstrip().startswith("#")), "")
    indent = first[: len(first) - len(first.lstrip())]
    if not indent:
        return text
    return "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)


def _fusion_without_inputs(fd: FusionDefinition) -> tuple[Fusion, str]:
    """The Fusion of a script that passes no inputs, and a note where its sizes were chosen: a definition
    declared for any size (-1 extents, as nvFuser's python_definition dumps and Thunder's fusions are)
    is built at example sizes, when they fit it; else the error that asks for inputs."""
    try:
        return fd.fusion(), ""
    except DefinitionError as declared:
        try:
            fusion = fd.fusion(fd.example_inputs())
        except DefinitionError:
            raise declared from None
    return fusion, (
        f"the definition declares symbolic extents (-1) and the script passes no inputs: each is taken as "
        f"{EXAMPLE_EXTENT}; add an inputs list and fd.execute(inputs) to choose the sizes"
    )


def _target_device(device: str | torch.device | None) -> torch.device:
    try:
        target = torch.device(device if device is not None else default_device())
    except (RuntimeError, TypeError):
        raise UnsupportedError(f"load(device={device!r}): not a torch device; use 'cpu' or 'cuda'") from None
    if target.type == "cuda" and not torch.cuda.is_available():
        raise UnsupportedError(f"load(device={device!r}): no CUDA device here; load with device='cpu'")
    if target.type not in ("cpu", "cuda", "meta"):
        raise UnsupportedError(
            f"load(device={device!r}): hfuse runs on 'cpu' or 'cuda' ('meta' reads shapes without data)"
        )
    return target


def _segment_index(segment: int | None, count: int | None) -> int:
    """`segment` checked against the script's fixed segments; where `count` is None (definitions that
    start as the script runs), only checked to be an index: the reader refuses one past the last."""
    if segment is None:
        return 0
    if isinstance(segment, bool) or not isinstance(segment, int) or segment < 0:
        raise choice_error(segment, max(count or 1, 1))
    if count is not None and segment >= max(count, 1):
        raise choice_error(segment, count)
    return segment


def _parse(source: Source) -> tuple[formats.Prepared, ast.Module]:
    """The script's syntax tree; where the whole text is not Python, an error message's fenced script."""
    prepared = formats.prepare(source.text)
    try:
        return prepared, _syntax_tree(source, prepared)
    except ParseError:
        fenced = formats.fenced(prepared)
        if fenced is None:
            raise
        return fenced, _syntax_tree(source, fenced)


# CPython 3.11's AST constructor keeps its recursion count in state shared by every thread
# (python/cpython#106905): two threads parsing at once, as the app's sessions do, can fail with
# "SystemError: AST constructor recursion depth mismatch". One parse at a time.
_PARSING = threading.Lock()


def _syntax_tree(source: Source, prepared: formats.Prepared) -> ast.Module:
    try:
        with _PARSING:
            return ast.parse(prepared.text)
    except SyntaxError as err:
        line, col = err.lineno or 1, err.offset or 1
        raise source.parse_error((line, col), f"the script is not valid Python: {err.msg}") from None
    except (RecursionError, MemoryError):
        raise LimitError(
            f"the script nests too deeply for the parser; simplify it or lower {settings.MAX_NESTING.env}"
        ) from None
