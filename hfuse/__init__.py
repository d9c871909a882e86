"""hfuse: nvFuser-style fusion definitions, segmented with horizontal fusion, run as Triton kernels."""

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
from hfuse.ir import Fusion, Op

__all__ = [
    "DataType",
    "DefinitionError",
    "Fusion",
    "HfuseError",
    "KernelError",
    "LimitError",
    "Op",
    "ParseError",
    "UnsupportedError",
    "ValidationError",
]
