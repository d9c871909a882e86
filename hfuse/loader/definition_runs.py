"""Which definition is read when a script's definition block runs more than once.

nvFuser's tests and users' sweeps write one `with FusionDefinition() as fd:` block in a loop, or in a
function called once per dtype or dim: each time the block runs, it starts a new definition. The
loader reads one of them, the `segment`-th in the order they run (the first by default), and passes
over the others: their bodies are not run, and the statements that run them are skipped like any
other statement about running a fusion. Script.segments lists them all.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from hfuse.errors import UnsupportedError


def choice_error(segment: object, count: int) -> UnsupportedError:
    held = f"{count} segments: pick 0 to {count - 1}" if count > 1 else "one definition: pick 0"
    return UnsupportedError(f"load(segment={segment!r}): the script holds {held}")


@dataclass
class DefinitionRuns:
    chosen: int = 0  # the index, in the order they run, of the definition read
    labels: list[str] = field(default_factory=list)  # one per definition the script ran
    _passed_over: list[Any] = field(default_factory=list)  # the definitions not read

    def opened(self, fd: Any, node: ast.AST) -> bool:
        """Counts a definition that starts running at `node`; whether it is the one read."""
        self.labels.append(f"definition {len(self.labels) + 1} (line {getattr(node, 'lineno', 1)})")
        read = len(self.labels) - 1 == self.chosen
        if not read:
            self._passed_over.append(fd)
        return read

    def passes_over(self, fd: Any) -> bool:
        return any(fd is other for other in self._passed_over)
