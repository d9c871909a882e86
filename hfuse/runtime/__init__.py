"""Running fusions: kernel cache, execution with validation, timing and the profile.

The entry points: `prepare(fusion, inputs, backend=..., alias_outputs=...)` gives the cached plan for
such inputs (`plan.run(inputs, profile=...)`, `plan.call(inputs)`); `execute` prepares and runs once;
`clear_cache` forgets every plan. They are imported on first use, so that reading a profile
(`hfuse.runtime.profile_model`) does not import Triton and the compiler.
"""

import importlib
from typing import Any

from hfuse.runtime.device import use_interpreter_without_cuda
from hfuse.runtime.profile_model import FusionProfile, KernelProfile

# Before any module of the runtime can import Triton: its library functions (tl.sigmoid, ...) are
# decorated when Triton is first imported, and must be interpretable inside interpreted kernels.
use_interpreter_without_cuda()

_LAZY = {  # name -> the module under hfuse.runtime that defines it
    "prepare": "executor",
    "execute": "executor",
    "clear_cache": "executor",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"hfuse.runtime.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'hfuse.runtime' has no attribute {name!r}")


__all__ = ["FusionProfile", "KernelProfile", *_LAZY]
