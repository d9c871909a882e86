"""How large the terms are that make each element of a fusion's outputs: the scale its rounding error
grows with.

Two correct computations of `a * b - c * d` that round in another order differ by a few units in the
last place of the products, not of the result: where the products nearly cancel, the result is tiny and
the difference, measured against the result, is huge. So an output's tolerance may scale with the size of
its terms, which this evaluates beside the reference: an input's magnitude is its absolute value; a sum or
difference adds its operands' magnitudes, a product multiplies them, a quotient divides by the divisor's
absolute value; sums, matrix products, casts and data movement carry magnitudes through as they carry
values, selections (`where`, `maximum`, `clamp`, max and min reductions) carry the larger of the
magnitudes they choose from. A conversion to an integer or bool adds its result's absolute value to its
operand's magnitude, and drops a NaN or infinite one: NaN and the infinities become integers there, which
later sums may cancel (inf and -inf as the largest and the lowest int32). A function of one value
carries its operand's rounding as far as its slope
does (first order): `exp(y)` is off by |exp(y)| times y's error, so its magnitude is |exp(y)| (1 + m(y));
`log(y)` adds m(y) / |y|; `sqrt`, `rsqrt` and `reciprocal` scale m(y) by their slopes; functions of slope
at most about 1 (`sin`, `tanh`, `erf`, `sigmoid`, ...) add m(y). Any other op restarts from the absolute
value of its result. An output computed through a rounding to a coarser float (a Float result of Half
math) has its magnitude scaled up to that float's tolerance. A wrong kernel still fails: an error that
is not a rounding of the terms is far larger than a few of their units.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch

from hfuse.dtypes import DataType
from hfuse.ir import Expr, Family, Fusion, Op
from hfuse.ops import OPS
from hfuse.reference import evaluate_env
from hfuse.tolerance import tolerance

Magnitude = Callable[[list[torch.Tensor], list[torch.Tensor]], torch.Tensor]  # (magnitudes, values) -> one

_ARITHMETIC: dict[Op, Magnitude] = {
    Op.ADD: lambda m, v: m[0] + m[1],
    Op.SUB: lambda m, v: m[0] + m[1],
    Op.MUL: lambda m, v: m[0] * m[1],
    Op.DIV: lambda m, v: m[0] / v[1].abs().double(),
    Op.NEG: lambda m, v: m[0],
    Op.ABS: lambda m, v: m[0],
    Op.CAST: lambda m, v: m[0],
}
_SELECTIONS: dict[Op, Magnitude] = {
    Op.MAXIMUM: lambda m, v: torch.maximum(m[0], m[1]),
    Op.MINIMUM: lambda m, v: torch.maximum(m[0], m[1]),
    Op.WHERE: lambda m, v: torch.where(v[0].to(torch.bool), m[1], m[2]),
    Op.CLAMP: lambda m, v: m[0],
}
# (magnitude of the operand, the operand, |result|) -> the result's magnitude
Sloped = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
_SLOPED: dict[Op, Sloped] = {
    Op.EXP: lambda m, y, r: r * (1 + m),
    Op.EXP2: lambda m, y, r: r * (1 + m * math.log(2)),
    Op.EXPM1: lambda m, y, r: r + (r + 1) * m,
    Op.LOG: lambda m, y, r: r + m / y.abs(),
    Op.LOG2: lambda m, y, r: r + m / (y.abs() * math.log(2)),
    Op.LOG10: lambda m, y, r: r + m / (y.abs() * math.log(10)),
    Op.LOG1P: lambda m, y, r: r + m / (1 + y).abs(),
    Op.SQRT: lambda m, y, r: r + m / (2 * r),
    Op.RSQRT: lambda m, y, r: r + m * r / (2 * y.abs()),
    Op.RECIPROCAL: lambda m, y, r: r + m * r * r,
}
_SLOPE_ONE = {Op.SIN, Op.COS, Op.TANH, Op.SIGMOID, Op.ERF, Op.ERFC, Op.ATAN, Op.RELU, Op.SILU}
_CARRIED_OPS = {Op.SUM, Op.CUMSUM, Op.MATMUL, Op.LINEAR, Op.MAX, Op.MIN}  # their meaning, run on magnitudes
_CARRIED_FAMILIES = {Family.VIEW, Family.RESIZE}


def output_magnitudes(fusion: Fusion, inputs: Sequence[Any]) -> list[torch.Tensor]:
    """For each output of `fusion` on `inputs`, the magnitude of every element, as float64. The inputs
    are not written (outputs added with `alias_input` are not copied into them)."""
    values = evaluate_env(fusion, inputs, write_aliases=False)
    magnitudes = {name: _absolute(values[name]) for name in fusion.inputs}
    for value in fusion.values:
        if value.is_scalar and value.const is not None:
            magnitudes[value.name] = _absolute(values[value.name])
    coarsest: dict[str, float] = {}  # value -> the loosest rtol of a rounding on its way (0: none)
    for expr in fusion.exprs:
        found = _magnitudes_of(expr, fusion, magnitudes, values)
        magnitudes.update(zip(expr.outputs, found, strict=True))
        before = max((coarsest.get(name, 0.0) for name in expr.inputs), default=0.0)
        for name in expr.outputs:
            coarsest[name] = max(before, _rounding(expr, fusion, name))
    return [
        magnitudes[out.name] * _widening(coarsest.get(out.name, 0.0), out.name, fusion)
        for out in fusion.outputs
    ]


def _rounding(expr: Expr, fusion: Fusion, name: str) -> float:
    """The relative tolerance of the rounding `expr` makes to a reduced float result (0: none)."""
    dtype = fusion.value(name).dtype
    if not dtype.is_reduced_float or expr.op.family in _CARRIED_FAMILIES or expr.op in _SELECTIONS:
        return 0.0
    if expr.op is Op.CAST and fusion.value(expr.inputs[0]).dtype is dtype:
        return 0.0
    return tolerance(dtype).rtol


def _widening(coarsest: float, name: str, fusion: Fusion) -> float:
    """How much more than its own dtype's tolerance an output's rounding may be: a Float result computed
    from Half values was rounded to Half on its way (it can be a Half unit in the last place off)."""
    own = tolerance(fusion.value(name).dtype).rtol
    return max(1.0, coarsest / own) if own else 1.0


def _magnitudes_of(
    expr: Expr, fusion: Fusion, magnitudes: dict[str, torch.Tensor], values: dict[str, torch.Tensor]
) -> list[torch.Tensor]:
    operands = [magnitudes[name] for name in expr.inputs]
    if expr.op is Op.CAST and _integral(fusion.value(expr.outputs[0]).dtype):
        finite = torch.where(operands[0].isfinite(), operands[0], 0)
        return [finite + _absolute(values[expr.outputs[0]])]
    table = _ARITHMETIC if expr.op in _ARITHMETIC else _SELECTIONS
    if expr.op in table:
        return [_absolute(table[expr.op](operands, [values[name] for name in expr.inputs]))]
    if expr.op in _SLOPED or expr.op in _SLOPE_ONE:
        result = _absolute(values[expr.outputs[0]])
        if expr.op in _SLOPE_ONE:
            return [result + operands[0]]
        return [_absolute(_SLOPED[expr.op](operands[0], values[expr.inputs[0]].double(), result))]
    if expr.op in _CARRIED_OPS or expr.op.family in _CARRIED_FAMILIES:
        # tensors by their magnitudes; scalars (bounds, shapes, pad values) as they are
        args = [values[n] if fusion.value(n).is_scalar else magnitudes[n] for n in expr.inputs]
        device = args[0].device if args else torch.device("cpu")
        try:
            found = OPS[expr.op].meaning(args, expr.attr_dict, [DataType.Double] * len(expr.outputs), device)
        except (RuntimeError, ValueError, IndexError, TypeError):
            found = None  # an op whose meaning needs its operands' own dtypes: from its results
        if found is not None:
            found = (found,) if isinstance(found, torch.Tensor) else found
            return [_absolute(m) for m in found]
    return [_absolute(values[name]) for name in expr.outputs]


def _integral(dtype: DataType) -> bool:
    return dtype.is_int or dtype is DataType.Bool


def _absolute(tensor: torch.Tensor) -> torch.Tensor:
    """As float64 (a complex value by its modulus, a bool as 0 or 1)."""
    if tensor.is_complex():
        return tensor.abs().double()
    return tensor.double().abs()
