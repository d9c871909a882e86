"""The layout algebra: strides and memory order, and what every movement op does to an index.

`movement` describes, once, how the result of each movement op reads each operand (see
`movement.py`); the other modules derive from that description the strides of views (`views.py`),
the operand index of a result index (`index.py`) and the operand elements a result reads
(`reads.py`). `strides.py` holds memory order and nvFuser's contiguity/stride_order description.
"""

from hfuse.layout.index import Arithmetic, Numbers, source_index
from hfuse.layout.movement import (
    MOVEMENT_OPS,
    Along,
    Drop,
    Movement,
    New,
    Regroup,
    Run,
    implicit_broadcast,
    is_identity,
    linked_dims,
    movement,
    movement_of,
    regroup,
)
from hfuse.layout.reads import read_mask, reads_every_element
from hfuse.layout.strides import (
    has_stride_order,
    innermost_dim,
    layout_of,
    memory_order,
    row_major,
    strides_for,
)
from hfuse.layout.views import View, reshaped_strides, view_after

__all__ = [
    "MOVEMENT_OPS",
    "Along",
    "Arithmetic",
    "Drop",
    "Movement",
    "New",
    "Numbers",
    "Regroup",
    "Run",
    "View",
    "has_stride_order",
    "implicit_broadcast",
    "innermost_dim",
    "is_identity",
    "layout_of",
    "linked_dims",
    "memory_order",
    "movement",
    "movement_of",
    "read_mask",
    "reads_every_element",
    "regroup",
    "reshaped_strides",
    "row_major",
    "source_index",
    "strides_for",
    "view_after",
]
