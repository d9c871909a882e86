"""Random ops in kernels: each element from the Philox stream of its op, as hfuse/ops/philox.py defines it.

An element's value depends only on the op's seed, its offset and the element's row-major position in the
op's own result, never on the kernel's tiling: every kernel that computes it (one, or several after the
segmenter cut the fusion) gets the same value, and so does the reference. The Philox rounds and the maps
from words to floats are the math library's `_rand_*` helpers; the affine step to (low, high) or
(mean, std) is written here, in the precision the reference uses (float32 for Float, Half and BFloat16,
float64 for Double). Constant parameters are written as the reference holds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from hfuse.codegen.emit import literal, round_down, widen
from hfuse.codegen.indexing import INT32_LIMIT, is_literal, linearize, term
from hfuse.dtypes import DataType
from hfuse.ir import Expr, Op, Value
from hfuse.ops import scalar_tensor

if TYPE_CHECKING:
    from hfuse.codegen.lower import Index, Lowering

# the helper that draws an op's standard values: (op, Double result?) -> name
_DRAWS = {
    (Op.UNIFORM, False): "_rand_unit",
    (Op.UNIFORM, True): "_rand_unit64",
    (Op.NORMAL, False): "_rand_normal",
    (Op.NORMAL, True): "_rand_normal64",
}


def lower_random(lowering: Lowering, expr: Expr, index: Index, comment: str) -> str:
    """The Triton expression of a UNIFORM or NORMAL result at `index`."""
    out = lowering.values[expr.outputs[0]]
    dtype = out.dtype
    first, second, seed, offset = (lowering.values[name] for name in expr.inputs)
    stream = ", ".join(lowering.value(v.name, index) for v in (seed, offset))
    call = f"{_DRAWS[expr.op, dtype is DataType.Double]}({stream}, {_position(lowering, out, index)})"
    drawn = lowering.assign(call, "rand", comment)
    standard = _is_standard(first, second)
    low, high = (_parameter(lowering, v, dtype) for v in (first, second))
    if expr.op is Op.NORMAL:
        return _held(lowering, drawn if standard else f"{drawn} * {high} + {low}", dtype)
    if dtype.is_reduced_float:
        # values that round to `high` become `low`, as in nvFuser's rng_uniform_range_half
        scaled = drawn if standard else f"{low} + {_span(lowering, first, second, dtype)} * {drawn}"
        value = _held(lowering, scaled, dtype)
        low, high = (_rounded_parameter(lowering, v, dtype) for v in (first, second))
        return lowering.assign(f"tl.where({value} == {high}, {low}, {value})", "uniform")
    unit = lowering.assign(f"tl.where({drawn} == 1.0, 0.0, {drawn})", "unit")  # nvFuser maps 1 to 0
    if standard:
        return unit
    return lowering.assign(f"{low} + {_span(lowering, first, second, dtype)} * {unit}", "uniform")


def _position(lowering: Lowering, out: Value, index: Index) -> str:
    """The row-major position of `index` in the op's result (int64 math where it may not fit int32)."""
    dims = index.dims
    if out.numel > INT32_LIMIT and not lowering.wide_index:
        dims = tuple(d if is_literal(d) else f"{d}.to(tl.int64)" for d in dims)
    return linearize(dims, out.shape)


def _is_standard(first: Value, second: Value) -> bool:
    """(low, high) or (mean, std) are the constants (0, 1): no affine step."""
    return first.const is not None and second.const is not None and (first.const, second.const) == (0, 1)


def _compute_type(dtype: DataType) -> tuple[str, torch.dtype]:
    return ("tl.float64", torch.float64) if dtype is DataType.Double else ("tl.float32", torch.float32)


def _held(lowering: Lowering, text: str, dtype: DataType) -> str:
    """A float32 result of a Half or BFloat16 op, rounded to its dtype (other dtypes as they are)."""
    if dtype.is_reduced_float:
        text = widen(round_down(term(text), dtype), dtype)
    return lowering.assign(text, "rand")


def _constant(value: Value, dtype: DataType) -> torch.Tensor:
    """A constant parameter as the reference holds it (a scalar tensor of its own dtype), in the compute
    type of `dtype`."""
    return scalar_tensor(value.const, value.dtype, torch.device("cpu")).to(_compute_type(dtype)[1])


def _parameter(lowering: Lowering, value: Value, dtype: DataType) -> str:
    if value.const is not None:
        return literal(_constant(value, dtype).item())
    return lowering.assign(
        f"tl.cast({lowering.scalar(value)}, {_compute_type(dtype)[0]})", value.name.lower()
    )


def _rounded_parameter(lowering: Lowering, value: Value, dtype: DataType) -> str:
    """A parameter of a Half or BFloat16 op rounded to that dtype, held as float32."""
    if value.const is not None:
        return literal(_constant(value, dtype).to(dtype.torch).item())
    return _held(lowering, _parameter(lowering, value, dtype), dtype)


def _span(lowering: Lowering, low: Value, high: Value, dtype: DataType) -> str:
    """high - low in the compute type; folded here for constants (Triton would fold them in float64)."""
    if low.const is not None and high.const is not None:
        return literal((_constant(high, dtype) - _constant(low, dtype)).item())
    return lowering.assign(
        f"{_parameter(lowering, high, dtype)} - {_parameter(lowering, low, dtype)}", "span"
    )
