"""Fusions where a product is rounded to its dtype before an add or a sum uses it, shared by the tests that
check that kernels keep that rounding (tests/test_codegen_rounding.py, on the CPU, and on a GPU).

Each case is a function of a dtype and a size: the Llama RoPE fusions of nvFuser's benchmark (with and
without cat, as tests/unseen/bench_rope_*.py define them), a * b + c and c - a * b, and the same with the
casts written out, as nvFuser users write them.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from hfuse import DataType, FusionDefinition
from hfuse.ir import Fusion

SEQ, HEADS, FEATURES = 16, 2, 128  # of the RoPE fusions, whose size is the batch


def rope_with_cat(dtype: DataType, batch: int) -> Fusion:
    """q * cos + rotate_half(q) * sin, rotate_half by slices, a negation in Float and cat."""
    seq, heads, features = SEQ, HEADS, FEATURES
    with FusionDefinition() as fd:
        q = fd.define_tensor(shape=[batch, seq, heads, features], dtype=dtype)
        cos = fd.define_tensor(shape=[seq, features], dtype=dtype)
        sin = fd.define_tensor(shape=[seq, features], dtype=dtype)
        q = fd.ops.permute(q, dims=[0, 2, 1, 3])
        half = features // 2
        q_real = fd.ops.slice(q, start_indices=[0, 0, 0, 0], end_indices=[batch, heads, seq, half])
        q_image = fd.ops.slice(q, start_indices=[0, 0, 0, half], end_indices=[batch, heads, seq, features])
        q_image = fd.ops.cast(-fd.ops.cast(q_image, dtype=DataType.Float), dtype=dtype)
        rotated = fd.ops.cat([q_image, q_real], dim=-1)
        cos = fd.ops.broadcast_in_dim(cos, shape=[1, 1, seq, features], broadcast_dims=[2, 3])
        sin = fd.ops.broadcast_in_dim(sin, shape=[1, 1, seq, features], broadcast_dims=[2, 3])
        fd.add_output(fd.ops.cast(q * cos + rotated * sin, dtype))
    return fd.fusion()


def rope_without_cat(dtype: DataType, batch: int) -> Fusion:
    """Each pair of q's halves times a 2x2 rotation matrix: a sum over 2 of products."""
    seq, heads, features = SEQ, HEADS, FEATURES
    half = features // 2
    with FusionDefinition() as fd:
        q = fd.define_tensor(shape=[batch, seq, heads, features], dtype=dtype)
        matrix = fd.define_tensor(shape=[seq, 2, half, 2], dtype=dtype)
        q = fd.ops.reshape(q, new_shape=[batch, seq, heads, 2, half])
        q = fd.ops.permute(q, dims=[0, 2, 1, 4, 3])
        q = fd.ops.broadcast_in_dim(q, shape=[batch, heads, seq, 1, half, 2], broadcast_dims=[0, 1, 2, 4, 5])
        matrix = fd.ops.broadcast_in_dim(
            matrix, shape=[batch, heads, seq, 2, half, 2], broadcast_dims=[2, 3, 4, 5]
        )
        out = fd.ops.cast(fd.ops.sum(q * matrix, [-1]), dtype)
        fd.add_output(fd.ops.reshape(out, new_shape=[batch, heads, seq, features]))
    return fd.fusion()


def _three_inputs(dtype: DataType, rows: int, combine: Callable) -> Fusion:
    with FusionDefinition() as fd:
        a, b, c = (fd.define_tensor(shape=[rows, 1024], dtype=dtype) for _ in range(3))
        fd.add_output(combine(fd, a, b, c))
    return fd.fusion()


def mul_add(dtype: DataType, rows: int) -> Fusion:
    return _three_inputs(dtype, rows, lambda fd, a, b, c: a * b + c)


def sub_of_product(dtype: DataType, rows: int) -> Fusion:
    return _three_inputs(dtype, rows, lambda fd, a, b, c: c - a * b)


def mul_add_with_casts(dtype: DataType, rows: int) -> Fusion:
    """The product computed in Float and cast to `dtype`, then added in Float and cast: two roundings."""

    def combine(fd, a, b, c):
        def wide(x):
            return fd.ops.cast(x, DataType.Float)

        product = fd.ops.cast(fd.ops.mul(wide(a), wide(b)), dtype)
        return fd.ops.cast(fd.ops.add(wide(product), wide(c)), dtype)

    return _three_inputs(dtype, rows, combine)


# id -> (the fusion of a dtype and a size, the dtypes it is checked in)
REDUCED = [DataType.BFloat16, DataType.Half]
CASES: dict[str, tuple[Callable[[DataType, int], Fusion], list[DataType]]] = {
    "rope-with-cat": (rope_with_cat, REDUCED),
    "rope-without-cat": (rope_without_cat, REDUCED),
    "mul-add": (mul_add, [*REDUCED, DataType.Float]),
    "sub-of-product": (sub_of_product, REDUCED),
    "mul-add-with-casts": (mul_add_with_casts, REDUCED),
}
PARAMS = [(name, dtype) for name, (_, dtypes) in CASES.items() for dtype in dtypes]
IDS = [f"{name}-{dtype.name}" for name, dtype in PARAMS]


def random_inputs(fusion: Fusion, device: str, seed: int) -> list[torch.Tensor]:
    """Normal values (as the benchmark's q, cos and sin are) of each input's shape and dtype."""
    generator = torch.Generator(device=device).manual_seed(seed)
    inputs = []
    for name in fusion.inputs:
        value = fusion.value(name)
        drawn = torch.randn(value.shape, generator=generator, device=device, dtype=torch.float32)
        inputs.append(drawn.to(value.dtype.torch))
    return inputs
