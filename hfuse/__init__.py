"""hfuse: nvFuser-style fusion definitions, segmented with horizontal fusion, run as Triton kernels."""

# First: without CUDA, Triton's interpreter must be chosen before anything imports Triton (torch imports it
# on its own for some meta-device ops), since Triton's library functions are decorated at its import.
import hfuse.runtime  # noqa: I001, F401
from hfuse.dtypes import DataType
from hfuse.errors import (
    DefinitionError,
    HfuseError,
    KernelError,
    LimitError,
    ParseError,
    UnsupportedError,
    ValidationError,
)
from hfuse.frontend import FusionDefinition
from hfuse.ir import Fusion, Op
from hfuse.loader import Script, load


def __getattr__(name: str):
    # The compiler imports Triton: load it when first asked for, not on `import hfuse`.
    if name in ("compile", "Compiled"):
        from hfuse import pipeline

        return pipeline.compile_fusion if name == "compile" else pipeline.Compiled
    raise AttributeError(f"module 'hfuse' has no attribute {name!r}")


__all__ = [
    "Compiled",
    "DataType",
    "DefinitionError",
    "Fusion",
    "FusionDefinition",
    "HfuseError",
    "KernelError",
    "LimitError",
    "Op",
    "ParseError",
    "Script",
    "UnsupportedError",
    "ValidationError",
    "load",
    "compile",
]
