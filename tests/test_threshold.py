"""threshold(x, threshold, value) through the generated kernels, against torch's own threshold: the threshold
and the value are held in x's type before the comparison (nvFuser and torch's CUDA kernel convert them so; a
Half x compares with the Half nearest the threshold), and a constant an integer x cannot hold is refused."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from hfuse import DataType, DefinitionError, FusionDefinition

FLOATS = {DataType.Double: torch.float64, DataType.Float: torch.float32}
REDUCED = {DataType.Half: torch.float16, DataType.BFloat16: torch.bfloat16}
INTEGERS = {DataType.Int: torch.int64, DataType.Int32: torch.int32}


def _threshold(dtype: DataType, threshold, value, *, scalar_input: bool = False):
    """A fusion of threshold on a vector of `dtype`; with `scalar_input` the threshold is its second input."""
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1], dtype=dtype)
        t = fd.define_scalar(dtype=DataType.Double) if scalar_input else threshold
        fd.add_output(fd.ops.threshold(x, t, value))
    return fd


def _held(number: float, dtype: torch.dtype) -> float:
    return torch.tensor(number, dtype=torch.float64).to(dtype).item()


@pytest.mark.parametrize("dtype", [*FLOATS, *INTEGERS], ids=lambda d: d.name)
@pytest.mark.parametrize(("threshold", "value"), [(0.0, 0.0), (2.5, -7.0), (-2.5, 3.0), (1e-3, 100.0)])
def test_threshold_agrees_with_torch(dtype, threshold, value):
    torch_dtype = {**FLOATS, **INTEGERS}[dtype]
    x = torch.arange(-40, 40) if dtype.is_int else torch.linspace(-4, 4, 97, dtype=torch.float64)
    x = x.to(torch_dtype)
    (got,) = _threshold(dtype, threshold, value).execute([x])
    assert torch.equal(got, F.threshold(x, threshold, value))


@pytest.mark.parametrize("dtype", REDUCED, ids=lambda d: d.name)
@pytest.mark.parametrize("scalar_input", [False, True], ids=["constant", "input"])
def test_a_reduced_float_x_compares_with_the_threshold_held_in_its_type(dtype, scalar_input):
    torch_dtype = REDUCED[dtype]
    x = torch.linspace(0.09, 0.11, 1000).to(torch_dtype)
    threshold = 0.10001  # between two Half values of x: torch's CPU kernel compares with it unrounded
    fd = _threshold(dtype, threshold, 0.1, scalar_input=scalar_input)
    (got,) = fd.execute([x, threshold] if scalar_input else [x])
    held = F.threshold(x.float(), _held(threshold, torch_dtype), _held(0.1, torch_dtype)).to(torch_dtype)
    assert torch.equal(got, held)


@pytest.mark.parametrize("dtype", INTEGERS, ids=lambda d: d.name)
@pytest.mark.parametrize("constant", [math.nan, math.inf, -math.inf, 1e30, -1e19], ids=repr)
@pytest.mark.parametrize("position", ["threshold", "value"])
def test_a_constant_an_integer_x_cannot_hold_is_refused(dtype, constant, position):
    threshold, value = (constant, 0) if position == "threshold" else (0, constant)
    x = torch.zeros(2, dtype=INTEGERS[dtype])
    with pytest.raises(DefinitionError, match="cannot hold it .*torch's threshold refuses it too"):
        _threshold(dtype, threshold, value).execute([x])
    with pytest.raises(RuntimeError, match="cannot be converted"):
        F.threshold(x, threshold, value)


def test_an_int32_x_refuses_a_threshold_beyond_int32():
    with pytest.raises(DefinitionError, match=r"-2147483648 to 2147483647"):
        _threshold(DataType.Int32, 2**40, 0).execute([torch.zeros(2, dtype=torch.int32)])


def test_a_bool_x_compares_with_the_threshold_as_a_bool():
    x = torch.tensor([True, False, True, False])
    (got,) = _threshold(DataType.Bool, 0.5, 0.0).execute([x])  # 0.5 holds as True, 0.0 as False
    assert torch.equal(got, torch.tensor([False, False, False, False]))
    (got,) = _threshold(DataType.Bool, 0.0, 1.0).execute([x])
    assert torch.equal(got, torch.tensor([True, True, True, True]))
