"""Magnitudes of the terms behind each output element, and the tolerance that scales with them: a near
cancellation rounded another way passes, a wrong result still fails."""

from __future__ import annotations

import math

import pytest
import torch

from hfuse.dtypes import DataType
from hfuse.errors import ValidationError
from hfuse.loader import load
from hfuse.magnitude import output_magnitudes
from hfuse.pipeline import compile_fusion
from hfuse.reference import evaluate
from hfuse.runtime.validate import validate_outputs
from hfuse.tolerance import compare

HEADER = "with FusionDefinition() as fd:\n"


def _fusion(body: str):
    return load(HEADER + "".join(f"    {line}\n" for line in body.strip().splitlines()), device="cpu").fusion


CANCELLING = """
x = fd.define_tensor(shape=[64, 32], contiguity=[True, True])
y = fd.define_tensor(shape=[64, 32], contiguity=[True, True])
z = fd.define_tensor(shape=[64, 32], contiguity=[True, True])
fd.add_output(fd.ops.sub(fd.ops.mul(x, y), fd.ops.mul(x, z)))
"""


def _cancelling_inputs():
    torch.manual_seed(0)
    x = torch.randn(64, 32) * 100
    y = torch.randn(64, 32)
    return [x, y, y + torch.randn(64, 32) * 1e-4]  # x*y - x*z nearly cancels


def test_a_difference_of_products_has_the_products_magnitude():
    fusion = _fusion(CANCELLING)
    x, y, z = _cancelling_inputs()
    (magnitude,) = output_magnitudes(fusion, [x, y, z])
    assert magnitude.dtype == torch.float64
    torch.testing.assert_close(magnitude, (x * y).abs().double() + (x * z).abs().double())


@pytest.mark.parametrize(
    "body, expected",
    [
        ("fd.add_output(fd.ops.sum(fd.ops.sub(a, b), dims=[1]))", lambda a, b: (a.abs() + b.abs()).sum(1)),
        ("fd.add_output(fd.ops.div(a, b))", lambda a, b: a.abs() / b.abs()),
        ("fd.add_output(fd.ops.exp(fd.ops.sub(a, b)))", lambda a, b: (a - b).exp() * (1 + a.abs() + b.abs())),
        ("fd.add_output(fd.ops.log(b))", lambda a, b: b.log().abs() + 1),
        ("fd.add_output(fd.ops.sqrt(fd.ops.mul(b, b)))", lambda a, b: b + b * b / (2 * b)),
        ("fd.add_output(fd.ops.sin(fd.ops.add(a, b)))", lambda a, b: (a + b).sin().abs() + a.abs() + b.abs()),
        ("fd.add_output(fd.ops.maximum(fd.ops.sub(a, b), a))", lambda a, b: a.abs() + b.abs()),
        (
            "fd.add_output(fd.ops.where(fd.ops.gt(a, 0), fd.ops.mul(a, b), b))",
            lambda a, b: (a * b).where(a > 0, b),
        ),
        ("fd.add_output(fd.ops.permute(fd.ops.neg(a), dims=[1, 0]))", lambda a, b: a.abs().T),
        ("fd.add_output(fd.ops.abs(fd.ops.atan2(a, b)))", lambda a, b: a.atan2(b)),
    ],
    ids=[
        "sum of differences",
        "quotient",
        "exp scales by its operand's error",
        "log divides by its operand",
        "sqrt by its slope",
        "slope one adds",
        "maximum carries the larger",
        "where carries the chosen",
        "movement carries",
        "another function restarts",
    ],  # fmt: skip
)
def test_magnitudes_follow_the_ops(body, expected):
    fusion = _fusion(
        "a = fd.define_tensor(shape=[8, 4], contiguity=[True, True])\n"
        "b = fd.define_tensor(shape=[8, 4], contiguity=[True, True])\n" + body
    )
    a, b = torch.randn(8, 4), torch.rand(8, 4) + 0.5
    (magnitude,) = output_magnitudes(fusion, [a, b])
    torch.testing.assert_close(magnitude, expected(a.double(), b.double()).abs(), rtol=1e-6, atol=1e-6)


def test_a_rounding_of_the_terms_passes_and_a_wrong_result_fails():
    fusion = _fusion(CANCELLING)
    inputs = _cancelling_inputs()
    (expected,) = evaluate(fusion, inputs)
    (magnitude,) = output_magnitudes(fusion, inputs)
    rounded = expected + (magnitude * 2e-6 * torch.sign(torch.randn_like(magnitude))).float()  # ~16 ulp
    dtype = fusion.value(fusion.outputs[0].name).dtype
    assert not compare(rounded, expected, dtype).ok  # measured against the tiny result, it looks wrong
    assert compare(rounded, expected, dtype, magnitude=magnitude).ok
    wrong = expected + (magnitude * 0.05).float()  # 5% of the terms: not a rounding
    failed = compare(wrong, expected, dtype, magnitude=magnitude)
    assert not failed.ok and "its terms' magnitude" in failed.message


def test_a_chain_of_exponentials_passes_an_operand_rounded_otherwise_and_fails_a_wrong_result():
    fusion = _fusion(
        "x = fd.define_tensor(shape=[256], contiguity=[True])\nfd.add_output(fd.ops.exp(fd.ops.exp(x)))"
    )
    x = torch.linspace(3.5, 4.4, 256)
    (expected,) = evaluate(fusion, [x])
    inner = torch.exp(x)
    two_ulps_off = torch.nextafter(torch.nextafter(inner, inner + 1), inner + 1)
    rounded = torch.exp(two_ulps_off)  # exp(exp(x)) amplifies the inner rounding by exp(x), ~80
    (magnitude,) = output_magnitudes(fusion, [x])
    dtype = fusion.value(fusion.outputs[0].name).dtype
    assert not compare(rounded, expected, dtype).ok
    assert compare(rounded, expected, dtype, magnitude=magnitude).ok
    assert not compare(expected * 1.01, expected, dtype, magnitude=magnitude).ok


def test_a_float_result_of_half_math_may_be_a_half_unit_off():
    fusion = _fusion(
        "x = fd.define_tensor(shape=[256], contiguity=[True], dtype=DataType.Half)\n"
        "fd.add_output(fd.ops.cast(fd.ops.exp(x), dtype=DataType.Float))"
    )
    x = torch.linspace(-2.7, -2.5, 256).half()
    (expected,) = evaluate(fusion, [x])
    half_unit_off = torch.nextafter(expected.half(), torch.tensor(1.0).half()).float()
    (magnitude,) = output_magnitudes(fusion, [x])
    assert not compare(half_unit_off, expected, DataType.Float).ok
    assert compare(half_unit_off, expected, DataType.Float, magnitude=magnitude).ok
    assert not compare(expected * 1.01, expected, DataType.Float, magnitude=magnitude).ok


@pytest.mark.parametrize(
    ("expected", "got", "terms"),
    [
        (8.260650206989658e37, 8.260524963110355e37, 3.95e40),  # 1.5e-5 off
        (1.9069921072822492e38, 1.906900836439033e38, 2.05e41),  # 4.8e-5 off: exp(exp(exp(x))) on the GPU
    ],
)
def test_a_magnitude_beyond_the_compared_dtype_scales_the_tolerance_as_much_as_it_says(expected, got, terms):
    expected, got = torch.tensor([expected]), torch.tensor([got])
    magnitude = torch.tensor([terms], dtype=torch.float64)
    assert not compare(got, expected, DataType.Float).ok
    assert compare(got, expected, DataType.Float, magnitude=magnitude).ok
    assert not compare(got * 1.05, expected, DataType.Float, magnitude=magnitude).ok


def test_validation_scales_the_tolerance_by_the_terms_only_where_it_must():
    fusion = _fusion(CANCELLING)
    compiled = compile_fusion(fusion, strategy="hfuse", alias_outputs=True)
    inputs = _cancelling_inputs()
    (expected,) = evaluate(fusion, inputs)
    (magnitude,) = output_magnitudes(fusion, inputs)
    rounded = expected + (magnitude * 2e-6).float()
    assert validate_outputs(compiled, inputs, [rounded], {}) > 0
    with pytest.raises(ValidationError, match="its terms' magnitude"):
        validate_outputs(compiled, inputs, [expected + (magnitude * 0.05).float()], {})


TO_INTEGERS_AND_BACK = """
x = fd.define_tensor(shape=[8], contiguity=[True])
fd.add_output(fd.ops.sum(fd.ops.cast(fd.ops.cast(x, dtype=DataType.Int32), dtype=DataType.Float), dims=[0]))
"""


def test_nan_and_infinities_converted_to_integers_take_their_integers_magnitude():
    fusion = _fusion(TO_INTEGERS_AND_BACK)
    x = torch.tensor([math.nan, math.inf, -math.inf, 2147483520.0, -2147483520.0, 1.5, -2.5, 7.9])
    (magnitude,) = output_magnitudes(fusion, [x])
    integers = x.to(torch.int32).double().abs()  # as the reference converts them on this device
    expected = (torch.where(x.isfinite(), x.double().abs(), 0) + integers).sum()
    torch.testing.assert_close(magnitude, expected.reshape(magnitude.shape), rtol=1e-12, atol=0)


def test_a_sum_of_integers_from_nan_and_infinities_passes_another_rounding_and_fails_a_wrong_result():
    # on the GPU inf and -inf become the largest and the lowest int32: their floats cancel in the sum,
    # which then rounds the small terms as its order of adding has them
    fusion = _fusion(TO_INTEGERS_AND_BACK)
    compiled = compile_fusion(fusion, strategy="hfuse", alias_outputs=True)
    inputs = [torch.tensor([math.nan, 2147483520.0, 1.0, 1.0, 1.0, 1.0, -2147483520.0, math.inf])]
    (expected,) = evaluate(fusion, inputs)
    (magnitude,) = output_magnitudes(fusion, inputs)
    assert magnitude.isfinite().all()
    another_order = expected + 1024.0  # 4 units in the last place of the terms near 2**31
    assert validate_outputs(compiled, inputs, [another_order], {}) > 0
    with pytest.raises(ValidationError, match="its terms' magnitude"):
        validate_outputs(compiled, inputs, [expected + (magnitude * 0.05).float()], {})


def test_the_inputs_of_an_in_place_output_are_left_alone():
    fusion = _fusion(
        "a = fd.define_tensor(shape=[4], contiguity=[True])\nfd.add_output(fd.ops.add(a, a), alias_input=a)\n"
    )
    a = torch.ones(4)
    (magnitude,) = output_magnitudes(fusion, [a])
    assert torch.equal(a, torch.ones(4)) and torch.equal(
        magnitude, torch.full((4,), 2.0, dtype=torch.float64)
    )


def test_without_memory_for_the_magnitudes_the_plain_verdict_stands(monkeypatch):
    from hfuse.runtime import validate

    def no_memory(*_):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.00 GiB")

    monkeypatch.setattr(validate, "output_magnitudes", no_memory)
    fusion = _fusion(CANCELLING)
    compiled = compile_fusion(fusion, strategy="hfuse", alias_outputs=True)
    inputs = _cancelling_inputs()
    (expected,) = evaluate(fusion, inputs)
    with pytest.raises(ValidationError) as caught:
        validate_outputs(compiled, inputs, [expected + 1e-3 * expected.abs().max()], {})
    assert "its terms' magnitude" not in str(caught.value)
