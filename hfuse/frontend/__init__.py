"""The nvFuser-compatible frontend: `FusionDefinition` and the handles it returns."""

from hfuse.frontend.definition import FusionDefinition
from hfuse.frontend.handles import Scalar, Tensor, Vector

__all__ = ["FusionDefinition", "Scalar", "Tensor", "Vector"]
