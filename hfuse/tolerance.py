"""Dtype-aware comparison of results: used by every test and by the runtime's validation.

Floats compare with |actual - expected| <= atol + rtol * |expected|, tolerances set by the dtype
(and widened for reductions over many elements); ints and bools compare exactly. NaN must appear
exactly where it is expected, so an output the kernel never wrote (poisoned with NaN) fails.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
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


CHUNK_ELEMENTS = 1 << 24  # elements compared at a time: bounds the temporaries on a device


def _as_tensor(value: torch.Tensor | bool | int | float | complex, device: torch.device) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach()
    return torch.tensor(value, device=device)


def _device_of(*values: torch.Tensor | bool | int | float | complex) -> torch.device:
    return next((v.device for v in values if isinstance(v, torch.Tensor)), torch.device("cpu"))


def _where(index: int, shape: torch.Size) -> str:
    if not shape:
        return "the scalar"
    coords = []
    for extent in reversed(shape):
        coords.append(index % extent)
        index //= extent
    return f"index {tuple(reversed(coords))}"


def _chunks(*tensors: torch.Tensor) -> Iterator[tuple[int, ...]]:
    """(offset, then a part of each tensor) flattened in row-major order, a bounded number of elements at
    a time; only the parts are copied where a tensor is not contiguous. The tensors have one shape."""
    a = tensors[0]
    if a.dim() == 0:
        yield 0, *(t.reshape(1) for t in tensors)
        return
    row = math.prod(a.shape[1:])
    rows = max(1, CHUNK_ELEMENTS // max(row, 1))
    for first in range(0, a.shape[0], rows):
        yield first * row, *(t[first : first + rows].reshape(-1) for t in tensors)


def _element(tensor: torch.Tensor, index: int) -> bool | int | float | complex:
    """The element at a row-major flat index, without flattening the tensor."""
    coords = []
    for extent in reversed(tensor.shape):
        coords.append(index % extent)
        index //= extent
    return tensor[tuple(reversed(coords))].item()


def _first(mask: torch.Tensor, offset: int) -> torch.Tensor:
    """The flat index of the first True of `mask` (any value when there is none), on its device."""
    return torch.argmax(mask.to(torch.uint8)) + offset


def _compare_exact(actual: torch.Tensor, expected: torch.Tensor) -> Comparison:
    counts, firsts = [], []
    for offset, a, e in _chunks(actual, expected):
        differ = a != e
        counts.append(differ.sum())
        firsts.append(_first(differ, offset))
    count_per_chunk = torch.stack(counts).tolist()  # the one wait for the device
    if not any(count_per_chunk):
        return Comparison(True, 0.0, "equal")
    chunk = next(i for i, c in enumerate(count_per_chunk) if c)
    first = int(firsts[chunk])
    a, e = _element(actual, first), _element(expected, first)
    if expected.dtype == torch.bool:
        worst = 1.0
    else:
        worst = max(float((x.double() - y.double()).abs().max()) for _, x, y in _chunks(actual, expected))
    message = (
        f"{sum(count_per_chunk)} of {expected.numel()} elements differ (exact match needed); first at "
        f"{_where(first, expected.shape)}: got {a}, expected {e}"
    )
    return Comparison(False, worst, message)


def _scale(expected: torch.Tensor, magnitude: torch.Tensor) -> torch.Tensor:
    """The larger of |expected| and the terms' magnitude; |expected| where the magnitude is not finite (an
    intermediate that overflowed says nothing about the rounding of a finite result). In float64, so that
    a finite magnitude beyond the compared dtype's range scales the tolerance as much as it says (the
    rounding of exp(exp(exp(x))) near float32's largest value, amplified by the 88 under the last exp)."""
    size = expected.abs().to(torch.float64)
    magnitude = magnitude.to(torch.float64)
    return torch.where(torch.isfinite(magnitude), torch.maximum(size, magnitude), size)


def _compute_dtype(actual: torch.Tensor, expected: torch.Tensor) -> torch.dtype:
    if actual.is_complex() or expected.is_complex():
        return torch.complex128
    if torch.float64 in (actual.dtype, expected.dtype):
        return torch.float64
    return torch.float32


def _compare_float(
    actual: torch.Tensor, expected: torch.Tensor, tol: Tolerance, magnitude: torch.Tensor | None = None
) -> Comparison:
    """One pass over each chunk on the tensors' own device, one wait for the device at the end. With a
    `magnitude` (`hfuse.magnitude`), the relative part of the tolerance scales with the larger of an
    element's expected value and the size of the terms that make it."""
    wide = _compute_dtype(actual, expected)
    tensors = (actual, expected) if magnitude is None else (actual, expected, magnitude)
    nan_counts, nan_firsts, bad_counts, bad_firsts, worst = [], [], [], [], []
    for offset, a, e, *m in _chunks(*tensors):
        a, e = a.to(wide), e.to(wide)
        scale = _scale(e, m[0]) if m else e.abs()
        a_nan, e_nan = torch.isnan(a), torch.isnan(e)
        nan_mismatch = a_nan != e_nan
        infinite = torch.isinf(a) | torch.isinf(e)
        error = torch.where(infinite, torch.where(a == e, 0.0, math.inf), (a - e).abs())
        error = torch.where(a_nan | e_nan, 0.0, error)
        allowed = torch.where(infinite, 0.0, tol.atol + tol.rtol * scale)
        bad = error > allowed
        nan_counts.append(nan_mismatch.sum())
        nan_firsts.append(_first(nan_mismatch, offset))
        bad_counts.append(bad.sum())
        bad_firsts.append(_first(bad, offset))
        worst.append(error.max())
    nans, bads = torch.stack(nan_counts).tolist(), torch.stack(bad_counts).tolist()
    if any(nans):
        first = int(nan_firsts[next(i for i, c in enumerate(nans) if c)])
        message = (
            f"{sum(nans)} of {expected.numel()} elements are NaN where the other side is not; first at "
            f"{_where(first, expected.shape)}: got {_element(actual, first)}, expected "
            f"{_element(expected, first)}"
        )
        return Comparison(False, math.nan, message)
    max_error = float(torch.stack(worst).max())
    if not any(bads):
        return Comparison(
            True, max_error, f"max abs error {max_error:.3g} (rtol {tol.rtol:.3g}, atol {tol.atol:.3g})"
        )
    first = int(bad_firsts[next(i for i, c in enumerate(bads) if c)])
    got, want = _element(actual, first), _element(expected, first)
    error_at = abs(got - want) if math.isfinite(abs(got)) and math.isfinite(abs(want)) else math.inf
    terms_at = None if magnitude is None else float(_element(magnitude, first))
    scale_at = abs(want) if terms_at is None or not math.isfinite(terms_at) else max(abs(want), terms_at)
    allowed_at = 0.0 if math.isinf(error_at) else tol.atol + tol.rtol * scale_at
    terms = "" if terms_at is None else f", its terms' magnitude {terms_at:.3g}"
    both = expected.numel() - int(torch.isnan(expected).sum())
    message = (
        f"{sum(bads)} of {both} elements are outside rtol {tol.rtol:.3g}, atol {tol.atol:.3g}; "
        f"first at {_where(first, expected.shape)}: got {got}, expected {want} "
        f"(abs error {error_at:.3g}, allowed {allowed_at:.3g}{terms}); max abs error {max_error:.3g}"
    )
    return Comparison(False, max_error, message)


def compare(
    actual: torch.Tensor | bool | int | float | complex,
    expected: torch.Tensor | bool | int | float | complex,
    dtype: DataType,
    reduction_size: int = 1,
    magnitude: torch.Tensor | None = None,
) -> Comparison:
    """Whether `actual` matches `expected` within the tolerance of `dtype`; with `magnitude` (of the
    terms that make each element, `hfuse.magnitude.output_magnitudes`), relative to the larger of the two.
    Runs where the tensors are (on a GPU, at device speed: no host copies, one wait for the result)."""
    device = _device_of(actual, expected)
    a, e = _as_tensor(actual, device), _as_tensor(expected, device)
    if a.shape != e.shape:
        return Comparison(False, math.inf, f"shape {list(a.shape)} differs from the expected {list(e.shape)}")
    if a.device != e.device:
        a = a.to(e.device)
    if e.numel() == 0:
        return Comparison(True, 0.0, "empty")
    if dtype in TOLERANCES:
        m = None if magnitude is None else magnitude.to(e.device).expand(e.shape)
        return _compare_float(a, e, tolerance(dtype, reduction_size), m)
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
        elif expr.op.family is Family.ATTENTION:  # sums over the head size and over either sequence
            tensors = [fusion.value(n) for n in expr.inputs if fusion.value(n).is_tensor]
            largest = max(largest, *(extent for t in tensors for extent in t.shape[-2:]))
        stack.extend(expr.inputs)
    return largest
