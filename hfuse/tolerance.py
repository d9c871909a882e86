"""Dtype-aware comparison of results: used by every test and by the runtime's validation.

Floats compare with |actual - expected| <= atol + rtol * |expected|, tolerances set by the dtype
(and widened for reductions over many elements); ints and bools compare exactly. NaN must appear
exactly where it is expected, so an output the kernel never wrote (poisoned with NaN) fails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from hfuse.dtypes import DataType, python_dtype
from hfuse.ir import Family, Fusion


@dataclass(frozen=True, slots=True)
class Tolerance:
    rtol: float
    atol: float


@dataclass(frozen=True, slots=True)
class Comparison:
    ok: bool
    max_abs_error: float
    message: str


# about one unit in the last place of each dtype, relative, plus a small absolute floor
TOLERANCES = {
    DataType.Double: Tolerance(1e-7, 1e-7),
    DataType.Float: Tolerance(1e-5, 1e-5),
    DataType.Half: Tolerance(1e-3, 1e-3),
    DataType.BFloat16: Tolerance(8e-3, 1e-3),
    DataType.Float8_e4m3fn: Tolerance(0.125, 1e-2),
    DataType.Float8_e5m2: Tolerance(0.25, 2e-2),
    DataType.ComplexFloat: Tolerance(1e-5, 1e-5),
    DataType.ComplexDouble: Tolerance(1e-7, 1e-7),
}


def tolerance(dtype: DataType, reduction_size: int = 1) -> Tolerance:
    """The tolerance of `dtype`; a result reduced over `reduction_size` elements gets sqrt(size) more."""
    base = TOLERANCES.get(dtype, Tolerance(0.0, 0.0))
    widen = math.sqrt(max(reduction_size, 1))
    return Tolerance(base.rtol * widen, base.atol * widen)


def _as_tensor(value: torch.Tensor | bool | int | float | complex) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    return torch.tensor(value)


def _where(index: int, shape: torch.Size) -> str:
    if not shape:
        return "the scalar"
    coords = []
    for extent in reversed(shape):
        coords.append(index % extent)
        index //= extent
    return f"index {tuple(reversed(coords))}"


def _compare_exact(actual: torch.Tensor, expected: torch.Tensor) -> Comparison:
    wide = torch.int64 if expected.dtype != torch.bool else torch.bool
    a, e = actual.to(wide).reshape(-1), expected.to(wide).reshape(-1)
    differ = (a != e).nonzero()
    if differ.numel() == 0:
        return Comparison(True, 0.0, "equal")
    first = int(differ[0])
    worst = float((a.to(torch.float64) - e.to(torch.float64)).abs().max()) if wide != torch.bool else 1.0
    message = (
        f"{differ.numel()} of {e.numel()} elements differ (exact match needed); first at "
        f"{_where(first, expected.shape)}: got {a[first].item()}, expected {e[first].item()}"
    )
    return Comparison(False, worst, message)


def _compare_float(actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> Comparison:
    wide = torch.complex128 if expected.is_complex() or actual.is_complex() else torch.float64
    a, e = actual.to(wide).reshape(-1), expected.to(wide).reshape(-1)
    a_nan, e_nan = torch.isnan(a), torch.isnan(e)
    nan_mismatch = (a_nan != e_nan).nonzero()
    if nan_mismatch.numel():
        first = int(nan_mismatch[0])
        message = (
            f"{nan_mismatch.numel()} of {e.numel()} elements are NaN where the other side is not; first at "
            f"{_where(first, expected.shape)}: got {a[first].item()}, expected {e[first].item()}"
        )
        return Comparison(False, math.nan, message)
    both = ~(a_nan | e_nan)
    a, e = a[both], e[both]
    infinite = torch.isinf(a) | torch.isinf(e)
    error = torch.where(infinite, torch.where(a == e, 0.0, math.inf), (a - e).abs())
    allowed = tol.atol + tol.rtol * e.abs()
    allowed = torch.where(infinite, 0.0, allowed)
    max_error = float(error.max()) if error.numel() else 0.0
    bad = (error > allowed).nonzero()
    if bad.numel() == 0:
        return Comparison(
            True, max_error, f"max abs error {max_error:.3g} (rtol {tol.rtol:.3g}, atol {tol.atol:.3g})"
        )
    first = int(bad[0])
    position = int(both.nonzero()[first])
    message = (
        f"{bad.numel()} of {both.numel()} elements are outside rtol {tol.rtol:.3g}, atol {tol.atol:.3g}; "
        f"first at {_where(position, expected.shape)}: got {a[first].item()}, expected {e[first].item()} "
        f"(abs error {float(error[first]):.3g}, allowed {float(allowed[first]):.3g}); "
        f"max abs error {max_error:.3g}"
    )
    return Comparison(False, max_error, message)


def compare(
    actual: torch.Tensor | bool | int | float | complex,
    expected: torch.Tensor | bool | int | float | complex,
    dtype: DataType,
    reduction_size: int = 1,
) -> Comparison:
    """Whether `actual` matches `expected` within the tolerance of `dtype`."""
    a, e = _as_tensor(actual), _as_tensor(expected)
    if a.shape != e.shape:
        return Comparison(False, math.inf, f"shape {list(a.shape)} differs from the expected {list(e.shape)}")
    if dtype in TOLERANCES:
        return _compare_float(a, e, tolerance(dtype, reduction_size))
    return _compare_exact(a, e)


def compare_outputs(
    actual: Sequence[torch.Tensor],
    expected: Sequence[torch.Tensor],
    reduction_sizes: Sequence[int] | None = None,
) -> Comparison:
    """All outputs compared, each with the tolerance of its expected dtype; one verdict for the lot."""
    if len(actual) != len(expected):
        return Comparison(False, math.inf, f"{len(actual)} outputs, {len(expected)} expected")
    sizes = reduction_sizes or [1] * len(expected)
    results = [compare(a, e, _dtype_of(e), size) for a, e, size in zip(actual, expected, sizes, strict=True)]
    failures = [f"output {i}: {r.message}" for i, r in enumerate(results) if not r.ok]
    worst = max((r.max_abs_error for r in results), default=0.0)
    if failures:
        return Comparison(False, worst, "; ".join(failures))
    return Comparison(True, worst, f"{len(results)} outputs match; max abs error {worst:.3g}")


def _dtype_of(value: torch.Tensor | bool | int | float | complex) -> DataType:
    if isinstance(value, torch.Tensor):
        return DataType.from_torch(value.dtype)
    return python_dtype(value)


def assert_close(
    actual: torch.Tensor | bool | int | float | complex,
    expected: torch.Tensor | bool | int | float | complex,
    dtype: DataType | None = None,
    reduction_size: int = 1,
) -> None:
    """Raises AssertionError unless `actual` matches `expected`: the same dtype when both are tensors,
    values within the tolerance of `dtype` (by default the expected one's)."""
    both_tensors = isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)
    if both_tensors and actual.dtype != expected.dtype:
        raise AssertionError(f"dtype {actual.dtype} differs from the expected {expected.dtype}")
    result = compare(actual, expected, dtype or _dtype_of(expected), reduction_size)
    if not result.ok:
        raise AssertionError(result.message)


def reduction_size(fusion: Fusion, name: str) -> int:
    """The most elements any one result element of `name` sums up on its way (widens float tolerances)."""
    producers = {out: expr for expr in fusion.exprs for out in expr.outputs}
    largest, seen, stack = 1, set(), [name]
    while stack:
        expr = producers.get(stack.pop())
        if expr is None or expr in seen:
            continue
        seen.add(expr)
        shape = fusion.value(expr.inputs[0]).shape if expr.inputs else ()
        if expr.op.family in (Family.REDUCTION, Family.VAR):
            largest = max(largest, math.prod(shape[d] for d in expr.attr("dims", ())))
        elif expr.op.family in (Family.SCAN, Family.MATMUL) and shape:
            largest = max(largest, shape[expr.attr("dim", -1)])
        stack.extend(expr.inputs)
    return largest
