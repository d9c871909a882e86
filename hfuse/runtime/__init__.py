"""Running fusions: kernel cache, execution with validation, timing and the profile.

`execute` is imported on first use, so that reading a profile (`hfuse.runtime.profile_model`)
does not import Triton and the compiler.
"""

from typing import Any

from hfuse.runtime.profile_model import FusionProfile, KernelProfile

BACKENDS = ("hfuse", "naive", "eager", "inductor")


def __getattr__(name: str) -> Any:
    if name in ("execute", "clear_cache"):
        from hfuse.runtime import executor

        return getattr(executor, name)
    raise AttributeError(f"module 'hfuse.runtime' has no attribute {name!r}")


__all__ = ["BACKENDS", "FusionProfile", "KernelProfile", "clear_cache", "execute"]
