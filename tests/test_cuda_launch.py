"""hfuse's own C launch function (`hfuse.runtime.cuda_launch`): the parameter kinds it takes from a
Triton signature, and the parameters it packs from Python values. It is built here as on a GPU machine;
the launches themselves run in tests/gpu."""

from __future__ import annotations

import struct

import pytest
import torch

from hfuse.runtime import cuda_launch
from hfuse.runtime.launcher import _specialization, specialization_letters


@pytest.mark.parametrize(
    ("signature", "expected"),
    [
        ({"x_ptr": "*fp32", "y_ptr": "*bf16"}, b"ppzz"),
        ({"x_ptr": "*fp16", "n": "i32", "m": "i64", "flag": "i1", "s": "fp32", "t": "fp64"}, b"pilbfdzz"),
        ({"x_ptr": "*fp32", "BLOCK": "constexpr", "u": "u64", "v": "u32"}, b"pxLIzz"),
        ({}, b"zz"),
        ({"x_ptr": "*fp32", "scale": "bf16"}, None),
        ({"x_ptr": "*fp32", "half": "fp16"}, None),
        ({"desc": "tensordesc<fp32[16, 16]>"}, None),
        ({"pair": ("*fp32", "i32")}, None),
    ],
    ids=["pointers", "scalars", "constexpr", "none", "bf16-scalar", "fp16-scalar", "descriptor", "tuple"],
)
def test_kinds_of_a_triton_signature(signature, expected):
    assert cuda_launch.kinds(signature) == expected


@pytest.fixture(scope="module")
def module():
    built = cuda_launch.c_module()
    assert built is not None, "the C launch function did not build (a C compiler and Python's headers)"
    return built


def _slots(*values: bytes) -> bytes:
    return b"".join(v.ljust(8, b"\0") for v in values)


def test_each_argument_is_packed_as_its_parameters_c_type(module):
    packed = module.pack(b"pilbBhHIfdxLzz", 0xDEADBEEF00, -3, -(2**40), -1, 255, -2, 65535, 2**32 - 1, 1.5,
                         -2.25, "constexpr", 2**64 - 1)  # fmt: skip
    assert packed == _slots(
        struct.pack("<Q", 0xDEADBEEF00),
        struct.pack("<i", -3),
        struct.pack("<q", -(2**40)),
        struct.pack("<b", -1),
        struct.pack("<B", 255),
        struct.pack("<h", -2),
        struct.pack("<H", 65535),
        struct.pack("<I", 2**32 - 1),
        struct.pack("<f", 1.5),
        struct.pack("<d", -2.25),
        struct.pack("<Q", 2**64 - 1),
        b"",
        b"",
    )


def test_a_bool_and_an_int_pack_as_their_parameters_types(module):
    assert module.pack(b"bf", True, 3) == _slots(b"\x01", struct.pack("<f", 3.0))


@pytest.mark.parametrize(
    ("kinds", "args", "error", "message"),
    [
        (b"pp", (1,), TypeError, "1 arguments for the kinds pp"),
        (b"p", (1, 2), TypeError, "2 arguments for the kinds p"),
        (b"q", (1,), ValueError, "unknown parameter kind q"),
        (b"p", ("not an address",), AttributeError, "data_ptr"),
        (b"i", ("not an int",), TypeError, "cannot be interpreted as an integer"),
        (b"l", (2**63,), OverflowError, "too big"),
        ("pp", (1, 2), TypeError, "kinds must be bytes"),
    ],
    ids=["too-few", "too-many", "unknown-kind", "not-a-tensor", "not-an-int", "overflow", "kinds-not-bytes"],
)
def test_wrong_arguments_raise_before_any_launch(module, kinds, args, error, message):
    with pytest.raises(error, match=message):
        module.pack(kinds, *args)
    with pytest.raises(error, match=message):
        module.launch(0, 1, 1, 1, 128, 0, kinds, b"", 0, *args)


def test_without_a_cuda_context_nothing_is_launched_and_the_caller_is_told(module):
    if torch.cuda.is_available():
        pytest.skip("a GPU machine: the launches run in tests/gpu")
    assert module.launch(0, 1, 1, 1, 128, 0, b"pzz", b"", 0, 1234) is False


def test_a_tensor_is_passed_as_its_address(module):
    x = torch.zeros(8)
    assert module.pack(b"ppi", x, x[1:], 5) == _slots(
        struct.pack("<Q", x.data_ptr()), struct.pack("<Q", x.data_ptr() + 4), struct.pack("<i", 5)
    )


SPECIALIZED = [1, 0, 16, 32, 33, -1, -16, -17, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**40, 2**63 - 1]
SPECIALIZED += [2**63, 2**64 + 16, 2**64 + 17, -(2**63), -(2**63) - 16, 2.5, 1.0, True, False]


def test_the_c_function_specializes_each_argument_as_triton_does(module):
    """Its letters are what `launcher.specialization_letters` makes of the Python rule `_specialization`
    (Triton 3.6's: 16-byte alignment of an address; an int's being 1, a multiple of 16, 32 or 64 bits)."""
    x = torch.zeros(16)
    args = [x, x[1:], x[4:], *SPECIALIZED]
    assert module.specializations(*args) == specialization_letters(_specialization(args)[1])
    assert module.specializations(x, x[1:])[:2] == b"au"


def test_arguments_of_another_specialization_launch_nothing(module):
    """On a GPU machine a launch of the null function would fail: these return before it."""
    x = torch.zeros(16)
    with pytest.raises(TypeError, match="2 arguments for 1 expected"):
        module.launch(0, 1, 1, 1, 128, 0, b"ppzz", b"a", 0, x, x)
    with pytest.raises(TypeError, match="expected must be bytes"):
        module.launch(0, 1, 1, 1, 128, 0, b"pzz", "a", 0, x)
    assert module.launch(0, 1, 1, 1, 128, 0, b"pzz", b"a", 0, x[1:]) is False, "an unaligned address"
    assert module.launch(0, 1, 1, 1, 128, 0, b"pizz", b"aO", 0, x, 2**40) is False, "an int past 32 bits"
    assert module.launch(0, 1, 1, 1, 128, 0, b"pzz", b"a", 0, "text") is False, "Triton's dispatch decides"
