"""The arithmetic a roofline counts: per element for elementwise ops and reductions, 2MNK for matrix
products, nothing for casts and movement."""

from __future__ import annotations

import pytest

from hfuse.flops import expr_flops, flops
from hfuse.loader import load

HEADER = "with FusionDefinition() as fd:\n"
X = "x = fd.define_tensor(shape=[4, 8], contiguity=[True, True])\n"


def _fusion(body: str):
    return load(HEADER + "".join(f"    {line}\n" for line in body.strip().splitlines()), device="cpu").fusion


@pytest.mark.parametrize(
    "body, expected",
    [
        (X + "fd.add_output(fd.ops.add(x, x))", 32),
        (X + "fd.add_output(fd.ops.exp(x))", 32),
        (
            X + "fd.add_output(fd.ops.sum(x, dims=[1]))",
            32,
        ),
        (
            X + "fd.add_output(fd.ops.var(x, dims=[1]))",
            96,
        ),
        (
            X + "fd.add_output(fd.ops.where(fd.ops.gt(x, x), x, x))",
            32 + 64,
        ),
        (
            "a = fd.define_tensor(shape=[4, 8], contiguity=[True, True])\n"
            "b = fd.define_tensor(shape=[8, 5], contiguity=[True, True])\n"
            "fd.add_output(fd.ops.matmul(a, b))",
            2 * 4 * 8 * 5,
        ),
        (
            X + "y = fd.ops.permute(fd.ops.cast(x, dtype=DataType.Half), dims=[1, 0])\n"
            "fd.add_output(fd.ops.reshape(y, new_shape=[32]))",
            0,
        ),
    ],
    ids=["add", "exp", "sum", "var", "where of a comparison", "matmul", "cast and movement"],
)
def test_operations_of_a_fusion(body, expected):
    fusion = _fusion(body)
    assert flops(fusion) == expected
    assert flops(fusion, fusion.exprs[:0]) == 0
    assert sum(expr_flops(fusion, e) for e in fusion.exprs) == expected
