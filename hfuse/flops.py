"""The arithmetic a fusion asks for, counted as a roofline counts it.

One operation per element an elementwise op computes (a special function such as exp counts one, as in
most rooflines; a three-operand op such as where, clamp or lerp two), one per element a reduction or a
scan folds in (a variance three: the difference, its square, the sum), 2*M*N*K for a matrix product, and
for attention its products: 2*L*S*(E + Ev) per batch and head forward, 2*L*S*(3E + 2Ev) backward (the
scores again, then dV, dP, dQ and dK). Casts, views, resizes, masks, indexing, sorting and creation count
nothing: they move or make data. An estimate of the work, not of the instructions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from hfuse.ir import Expr, Family, Fusion, Op

_PER_ELEMENT_OUT = {Family.UNARY: 1, Family.BINARY: 1, Family.TERNARY: 2}
_PER_ELEMENT_IN = {Family.REDUCTION: 1, Family.VAR: 3, Family.SCAN: 1}


def expr_flops(fusion: Fusion, expr: Expr) -> int:
    family = expr.op.family
    if family in _PER_ELEMENT_OUT:
        return _PER_ELEMENT_OUT[family] * math.prod(fusion.value(expr.outputs[0]).shape)
    if family in _PER_ELEMENT_IN:
        return _PER_ELEMENT_IN[family] * math.prod(fusion.value(expr.inputs[0]).shape)
    if family is Family.MATMUL:
        depth = fusion.value(expr.inputs[0]).shape[-1]
        return 2 * depth * math.prod(fusion.value(expr.outputs[0]).shape)
    if family is Family.ATTENTION:
        return _attention_flops(fusion, expr)
    return 0


def _attention_flops(fusion: Fusion, expr: Expr) -> int:
    first = 0 if expr.op is Op.SDPFA_FWD else 1  # the backward's operands start with grad_output
    query, _, value = (fusion.value(name).shape for name in expr.inputs[first : first + 3])
    length, head_size = query[-2:]
    keys, value_size = value[-2:]
    products = head_size + value_size if expr.op is Op.SDPFA_FWD else 3 * head_size + 2 * value_size
    return 2 * math.prod(query[:-2]) * length * keys * products


def flops(fusion: Fusion, exprs: Iterable[Expr] | None = None) -> int:
    """The operations of `exprs` (by default every expr of the fusion)."""
    return sum(expr_flops(fusion, expr) for expr in (fusion.exprs if exprs is None else exprs))
