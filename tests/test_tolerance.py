"""Dtype-aware comparison: what passes, what fails, and what the failure says."""

import math

import pytest
import torch

from hfuse.dtypes import DataType
from hfuse.tolerance import assert_close, compare, compare_outputs


def ulps(value: float, count: int, dtype: torch.dtype) -> torch.Tensor:
    """`value` moved up by `count` units in the last place of `dtype`."""
    t = torch.tensor([value], dtype=dtype)
    for _ in range(count):
        t = torch.nextafter(t, torch.tensor([math.inf], dtype=dtype))
    return t


CASES = [
    ("float-close", torch.tensor([1.0, 2.0]), torch.tensor([1.0 + 5e-6, 2.0]), DataType.Float, 1, True),
    ("float-far", torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.001]), DataType.Float, 1, False),
    ("float-near-zero", torch.tensor([3e-6]), torch.tensor([0.0]), DataType.Float, 1, True),
    ("float-reduction-widens", torch.tensor([100.0]), torch.tensor([100.005]), DataType.Float, 100, True),
    ("double-tight", torch.tensor([1.0], dtype=torch.float64),
     torch.tensor([1.0 + 1e-6], dtype=torch.float64), DataType.Double, 1, False),
    ("half-one-ulp", ulps(1.5, 1, torch.float16), ulps(1.5, 0, torch.float16), DataType.Half, 1, True),
    ("half-three-ulps", ulps(1.5, 3, torch.float16), ulps(1.5, 0, torch.float16), DataType.Half, 1, False),
    ("bf16-one-ulp", ulps(1.0, 1, torch.bfloat16), ulps(1.0, 0, torch.bfloat16), DataType.BFloat16, 1, True),
    ("bf16-two-ulps", ulps(1.0, 2, torch.bfloat16), ulps(1.0, 0, torch.bfloat16), DataType.BFloat16, 1,
     False),
    ("int-exact", torch.tensor([1, 2, 3]), torch.tensor([1, 2, 3]), DataType.Int, 1, True),
    ("int-off-by-one", torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]), DataType.Int, 1, False),
    ("int-no-widening", torch.tensor([100]), torch.tensor([101]), DataType.Int, 10_000, False),
    ("bool-differs", torch.tensor([True, False]), torch.tensor([True, True]), DataType.Bool, 1, False),
    ("nan-matches", torch.tensor([math.nan, 1.0]), torch.tensor([math.nan, 1.0]), DataType.Float, 1, True),
    ("nan-unexpected", torch.tensor([math.nan, 1.0]), torch.tensor([0.0, 1.0]), DataType.Float, 1, False),
    ("nan-missing", torch.tensor([0.0, 1.0]), torch.tensor([math.nan, 1.0]), DataType.Float, 1, False),
    ("inf-matches", torch.tensor([math.inf, -math.inf]), torch.tensor([math.inf, -math.inf]), DataType.Float,
     1, True),
    ("inf-sign", torch.tensor([math.inf]), torch.tensor([-math.inf]), DataType.Float, 1, False),
    ("inf-vs-large", torch.tensor([3e38]), torch.tensor([math.inf]), DataType.Float, 1, False),
    ("shape", torch.zeros(2, 3), torch.zeros(3, 2), DataType.Float, 1, False),
    ("complex", torch.tensor([1 + 1j]), torch.tensor([1 + 1.001j]), DataType.ComplexFloat, 1, False),
    ("scalar-number", torch.tensor(0.5), 0.5, DataType.Double, 1, True),
]  # fmt: skip


@pytest.mark.parametrize(
    "actual, expected, dtype, size, ok", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_compare(actual, expected, dtype, size, ok):
    assert compare(actual, expected, dtype, reduction_size=size).ok is ok


def test_failure_message_locates_the_worst_element():
    actual = torch.tensor([[1.0, 2.0], [3.0, 4.5]])
    expected = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    result = compare(actual, expected, DataType.Float)
    assert result.max_abs_error == pytest.approx(0.5)
    assert (
        "1 of 4 elements are outside rtol 1e-05, atol 1e-05; first at index (1, 1): got 4.5, expected 4.0"
        in (result.message)
    )


def test_unwritten_output_names_the_nan():
    poisoned = torch.full((3,), math.nan)
    poisoned[0] = 1.0
    result = compare(poisoned, torch.ones(3), DataType.Float)
    assert not result.ok
    assert "2 of 3 elements are NaN where the other side is not; first at index (1,)" in result.message


def test_assert_close_uses_the_expected_dtype():
    assert_close(torch.tensor([1.0], dtype=torch.float16), ulps(1.0, 1, torch.float16))
    with pytest.raises(
        AssertionError, match=r"\(exact match needed\); first at index \(0,\): got 2, expected 3"
    ):
        assert_close(torch.tensor([2]), torch.tensor([3]))
    with pytest.raises(AssertionError, match="dtype torch.float32 differs from the expected torch.float16"):
        assert_close(torch.ones(2), torch.ones(2, dtype=torch.float16))


def test_compare_outputs_uses_each_outputs_dtype():
    half = torch.tensor([1.0], dtype=torch.float16)
    ints = torch.tensor([3])
    assert compare_outputs([ulps(1.0, 1, torch.float16), ints], [half, ints]).ok
    result = compare_outputs([half, torch.tensor([4])], [half, ints])
    assert not result.ok
    assert result.message.startswith("output 1: 1 of 1 elements differ")
    assert compare_outputs([half], [half, ints]).message == "1 outputs, 2 expected"


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_compare_in_parts_names_the_first_element_in_row_major_order(monkeypatch, layout):
    from hfuse import tolerance

    monkeypatch.setattr(tolerance, "CHUNK_ELEMENTS", 8)  # 2 rows of 4 per part: 3 parts
    expected = torch.arange(24, dtype=torch.float32).reshape(6, 4)
    actual = expected.clone()
    actual[5, 1], actual[4, 3] = 100.0, -1.0  # two bad elements, both in the last part
    if layout == "transposed":
        expected = expected.t().contiguous().t()  # the same values with column-major strides
    result = compare(actual, expected, DataType.Float)
    assert not result.ok and result.max_abs_error == pytest.approx(79.0)
    assert result.message.startswith("2 of 24 elements are outside")
    assert "first at index (4, 3): got -1.0, expected 19.0" in result.message
    nan = actual.clone()
    nan[3, 0] = math.nan
    assert "1 of 24 elements are NaN where the other side is not; first at index (3, 0)" in (
        compare(nan, expected, DataType.Float).message
    )
    ints = compare(actual.long(), expected.long(), DataType.Int)
    assert ints.message.startswith("2 of 24 elements differ") and "first at index (4, 3)" in ints.message


def test_compare_of_empty_tensors_passes():
    assert compare(torch.empty(0, 3), torch.empty(0, 3), DataType.Float).ok
    empty = torch.empty(2, 0, dtype=torch.int64)
    assert compare(empty, empty.clone(), DataType.Int).ok
