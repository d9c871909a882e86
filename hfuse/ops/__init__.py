"""The op table: everything hfuse knows about each op, in one entry per op.

An entry (`OpDef`) gives the op's shape and dtype rule (for elementwise ops, its operand and result
types as data), its meaning in torch (the reference), how a program computes it (a kernel with the
op's emitter, a kernel lowering it at an index, or torch) and what one element costs. Inference, the
reference, the segmenter and codegen all read it; `tests/test_ops.py` checks that no entry lacks a
piece.
"""

from hfuse.ops.definition import Computed, Cost, OpDef
from hfuse.ops.emitters import Emitter, Policy, Types
from hfuse.ops.meaning import scalar_tensor
from hfuse.ops.table import DEFINITIONS, OPS, fold_constant, infer, op_def

__all__ = [
    "DEFINITIONS",
    "OPS",
    "Computed",
    "Cost",
    "Emitter",
    "OpDef",
    "Policy",
    "Types",
    "fold_constant",
    "infer",
    "op_def",
    "scalar_tensor",
]
