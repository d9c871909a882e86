"""Launching one generated kernel of a plan, with as little host work as each call allows.

The first call goes through the module's `launch()`, which checks every argument's dtype, shape and
strides against the kernel's. The plan's inputs and its own outputs keep those layouts, so later calls
skip the checks: they call the module's `run()`, or, on a GPU, the compiled kernel's own launcher
bound to the grid (Triton's `CompiledKernel[grid]`), which also skips Triton's per-call argument
binding. Triton specializes a pointer on whether it is 16-byte aligned, so that launcher is used only
while every argument is a tensor with the alignment it had when the kernel was compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import torch


class KernelLauncher:
    def __init__(self, module: ModuleType, grid: tuple[int, ...]) -> None:
        self.module = module
        self.grid = grid
        self.generated_run = getattr(module, "run", None)
        self.checked = False
        self.direct: Callable[..., object] | None = None
        self.alignment: tuple[bool, ...] = ()

    def __call__(self, args: Sequence[Any]) -> Callable[[], object]:
        """Launches the kernel on `args` and returns a function that launches it again on them."""
        launch = self._choose(args)
        launched = launch(*args)
        if not self.checked:
            self.checked = True
            self._bind(launched, args)
        return lambda: launch(*args)

    def launch(self, args: Sequence[Any]) -> None:
        """Launches the kernel on `args`, as `__call__` does, without making the function that repeats it."""
        if not self.checked:
            self(args)
            return
        self._choose(args)(*args)

    def _choose(self, args: Sequence[Any]) -> Callable[..., object]:
        if not self.checked:
            return self.module.launch
        run = getattr(self.module, "run", self.module.launch)
        if self.direct is not None and run is self.generated_run and _alignment(args) == self.alignment:
            return self.direct
        return run

    def _bind(self, launched: object, args: Sequence[Any]) -> None:
        """Keeps the compiled kernel's launcher when Triton returned one (it does not in the interpreter)."""
        alignment = _alignment(args)
        if hasattr(launched, "function") and hasattr(launched, "__getitem__") and alignment:
            grid = (*self.grid, *(1,) * (3 - len(self.grid)))
            self.direct = launched[grid]
            self.alignment = alignment


def _alignment(args: Sequence[Any]) -> tuple[bool, ...]:
    """Whether each argument's data is 16-byte aligned; empty when an argument is not a tensor."""
    aligned = []
    for a in args:
        if not isinstance(a, torch.Tensor):
            return ()
        aligned.append(a.data_ptr() % 16 == 0)
    return tuple(aligned)
