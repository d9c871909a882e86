"""Patterns of the extended suite's classes that neither suite holds, as fusion scripts, and hfuse against
torch.compile on them (`bench/results/2026-12-04-NVIDIA-H200-patterns.txt`; GPU only for `compare`):
fp16; reductions over several dims, with kept dims between them (a batch norm over NCHW's dims 0, 2, 3);
short rows (QK-norm over head_dim); attention-score softmaxes; column sums of a few very long rows and of
tall, narrow ones; vocabulary rows of 1-16; full reductions; reductions of permuted and transposed inputs.

    python3 bench/pattern_cases.py write DIR
    PYTHONPATH=. python3 bench/pattern_cases.py compare DIR/*.py

torch.compile compiles hfuse's reference of each fusion (`column_cases.compare`): these scripts have no
plain torch function.
"""

from __future__ import annotations

from pathlib import Path

from column_cases import TAGS, fusion_script, logsumexp, write_scripts


def _broadcast(name: str, shape: list[int], dims: list[int]) -> str:
    return f"fd.ops.broadcast_in_dim({name}, shape={shape}, broadcast_dims={dims})"


def _kept(shape: list[int], dims: list[int]) -> list[int]:
    return [d for d in range(len(shape)) if d not in dims]


def _reduce(op: str, dims: list[int]) -> str:
    return f"    y = fd.ops.{op}(x, dims={dims}, keepdim=False, dtype=DataType.Null)"


def _softmax(shape: list[int], scale: float | None = None) -> str:
    kept, source = _kept(shape, [len(shape) - 1]), "x" if scale is None else "z"
    factor = f"fd.define_scalar({scale}, dtype=DataType.Double)"
    scaled = "" if scale is None else f"    z = fd.ops.mul(x, {factor})\n"
    return scaled + (
        f"    m = fd.ops.max({source}, dims=[{len(shape) - 1}], keepdim=False, dtype=DataType.Null)\n"
        f"    e = fd.ops.exp(fd.ops.sub({source}, {_broadcast('m', shape, kept)}))\n"
        f"    s = fd.ops.sum(e, dims=[{len(shape) - 1}], keepdim=False, dtype=DataType.Null)\n"
        f"    y = fd.ops.div(e, {_broadcast('s', shape, kept)})"
    )


def _normalize(shape: list[int], dims: list[int], eps: float = 1e-5, affine: bool = False) -> str:
    """x minus its mean over `dims`, over the root of its variance there; scaled and shifted by a weight
    and a bias over dim 1 when `affine`."""
    kept = _kept(shape, dims)
    body = (
        f"    v, mu = fd.ops.var_mean(x, dims={dims}, correction=0, keepdim=False)\n"
        f"    c = fd.ops.sub(x, {_broadcast('mu', shape, kept)})\n"
        f"    r = fd.ops.rsqrt(fd.ops.add(v, fd.define_scalar({eps}, dtype=DataType.Double)))\n"
        f"    y = fd.ops.mul(c, {_broadcast('r', shape, kept)})"
    )
    if affine:
        weight, bias = _broadcast("w", shape, [1]), _broadcast("b", shape, [1])
        body += f"\n    y = fd.ops.add(fd.ops.mul(y, {weight}), {bias})"
    return body


def _rms_norm(shape: list[int]) -> str:
    last = len(shape) - 1
    return (
        f"    q = fd.ops.sum(fd.ops.mul(x, x), dims=[{last}], keepdim=False, dtype=DataType.Null)\n"
        f"    q = fd.ops.div(q, fd.define_scalar({float(shape[last])}, dtype=DataType.Double))\n"
        "    r = fd.ops.rsqrt(fd.ops.add(q, fd.define_scalar(1e-6, dtype=DataType.Double)))\n"
        f"    y = fd.ops.mul(x, {_broadcast('r', shape, _kept(shape, [last]))})"
    )


# name: (shape, dtype, body, whether the output is cast back to the input's type, per-channel inputs)
PATTERNS: dict[str, tuple[list[int], str, str, bool, bool]] = {
    "softmax_fp16_4096x32000": ([4096, 32000], "Half", _softmax([4096, 32000]), True, False),
    "layernorm_fp16_8192x4096": ([8192, 4096], "Half", _normalize([8192, 4096], [1]), True, False),
    "colsum_fp16_16384x4096": ([16384, 4096], "Half", _reduce("sum", [0]), False, False),
    "bias_grad3d_bf16_8x2048x4096": ([8, 2048, 4096], "BFloat16", _reduce("sum", [0, 1]), False, False),
    "bias_grad3d_fp32_4x1024x5120": ([4, 1024, 5120], "Float", _reduce("sum", [0, 1]), False, False),
    "sum02_bf16_64x512x768": ([64, 512, 768], "BFloat16", _reduce("sum", [0, 2]), False, False),
    "sum02_fp32_32x256x3136": ([32, 256, 3136], "Float", _reduce("sum", [0, 2]), False, False),
    "sum02_bf16_16x1024x1000": ([16, 1024, 1000], "BFloat16", _reduce("sum", [0, 2]), False, False),
    "colmax_fp32_16384x4096": ([16384, 4096], "Float", _reduce("max", [0]), False, False),
    "colmin_bf16_8191x3000": ([8191, 3000], "BFloat16", _reduce("min", [0]), False, False),
    "batchnorm2d_fp32_32x256x56x56": (
        [32, 256, 56, 56], "Float", _normalize([32, 256, 56, 56], [0, 2, 3]), True, False,
    ),
    "batchnorm2d_fp32_32x64x56x56": (
        [32, 64, 56, 56], "Float", _normalize([32, 64, 56, 56], [0, 2, 3]), True, False,
    ),
    "batchnorm2d_bf16_64x64x112x112": (
        [64, 64, 112, 112], "BFloat16", _normalize([64, 64, 112, 112], [0, 2, 3]), True, False,
    ),
    "batchnorm2d_affine_bf16_128x256x28x28": (
        [128, 256, 28, 28], "BFloat16", _normalize([128, 256, 28, 28], [0, 2, 3], affine=True), True, True,
    ),
    "batchnorm2d_affine_fp16_16x512x32x64": (
        [16, 512, 32, 64], "Half", _normalize([16, 512, 32, 64], [0, 2, 3], affine=True), True, True,
    ),
    "batchnorm3d_fp32_8x64x16x56x56": (
        [8, 64, 16, 56, 56], "Float", _normalize([8, 64, 16, 56, 56], [0, 2, 3, 4]), True, False,
    ),
    "bnstats_fp32_32x512x28x28": (
        [32, 512, 28, 28], "Float",
        "    y, m = fd.ops.var_mean(x, dims=[0, 2, 3], correction=1, keepdim=False)", False, False,
    ),
    "groupnorm_bf16_32x32x25088": (
        [32, 32, 25088], "BFloat16", _normalize([32, 32, 25088], [2]), True, False,
    ),
    "qknorm_bf16_262144x128": ([262144, 128], "BFloat16", _rms_norm([262144, 128]), True, False),
    "qknorm4d_bf16_8x2048x32x128": (
        [8, 2048, 32, 128], "BFloat16", _rms_norm([8, 2048, 32, 128]), True, False,
    ),
    "rowsum_fp32_1048576x16": ([1048576, 16], "Float", _reduce("sum", [1]), False, False),
    "rowmax_bf16_2097152x3": ([2097152, 3], "BFloat16", _reduce("max", [1]), False, False),
    "softmax_fp32_65536x100": ([65536, 100], "Float", _softmax([65536, 100]), True, False),
    "attn_softmax_bf16_8x16x1024x1024": (
        [8, 16, 1024, 1024], "BFloat16", _softmax([8, 16, 1024, 1024], scale=0.125), True, False,
    ),
    "attn_softmax_fp16_4x32x512x2048": (
        [4, 32, 512, 2048], "Half", _softmax([4, 32, 512, 2048], scale=0.088), True, False,
    ),
    "colsum_fp32_1048576x8": ([1048576, 8], "Float", _reduce("sum", [0]), False, False),
    "colsum_bf16_64x1048576": ([64, 1048576], "BFloat16", _reduce("sum", [0]), False, False),
    "colsum_fp32_3x4194304": ([3, 4194304], "Float", _reduce("sum", [0]), False, False),
    "colsum_fp32_2x8388608": ([2, 8388608], "Float", _reduce("sum", [0]), False, False),
    "colsum_bf16_4x4194304": ([4, 4194304], "BFloat16", _reduce("sum", [0]), False, False),
    "colsum_fp16_7x1048577": ([7, 1048577], "Half", _reduce("sum", [0]), False, False),
    "middle_sum_fp32_16x8192x16": ([16, 8192, 16], "Float", _reduce("sum", [1]), False, False),
    "middle_sum_fp32_16x12x131072": ([16, 12, 131072], "Float", _reduce("sum", [1]), False, False),
    "middle_sum_bf16_64x3x65536": ([64, 3, 65536], "BFloat16", _reduce("sum", [1]), False, False),
    "middle_max_bf16_32x4096x96": ([32, 4096, 96], "BFloat16", _reduce("max", [1]), False, False),
    "softmax_bf16_1x151936": ([1, 151936], "BFloat16", _softmax([1, 151936]), True, False),
    "softmax_bf16_4x256000": ([4, 256000], "BFloat16", _softmax([4, 256000]), True, False),
    "logsumexp_fp32_16x128256": ([16, 128256], "Float", logsumexp([16, 128256]), False, False),
    "rmsnorm_bf16_2x8192": ([2, 8192], "BFloat16", _rms_norm([2, 8192]), True, False),
    "sum_all_bf16_8192x8192": ([8192, 8192], "BFloat16", _reduce("sum", [0, 1]), False, False),
    "amax_all_fp16_4096x14336": (
        [4096, 14336], "Half",
        "    y = fd.ops.max(fd.ops.abs(x), dims=[0, 1], keepdim=False, dtype=DataType.Null)", False, False,
    ),
    "var_all_fp32_33554431": (
        [33554431], "Float",
        "    y, m = fd.ops.var_mean(x, dims=[0], correction=1, keepdim=False)", False, False,
    ),
}  # fmt: skip

# inputs laid out other than row-major: a sum over the last dim of a [8, 2048, 32, 128] bf16 tensor seen
# as [8, 32, 2048, 128], and a softmax over the rows of a column-major [4096, 8192] fp32 one
STRIDED = {
    "permuted_rowsum_bf16_8x32x2048x128": (
        "[-1, -1, -1, -1]", "[True, True, True, True]", "BFloat16", "[3, 1, 2, 0]",
        _reduce("sum", [3]),
        'torch.randn((8, 2048, 32, 128), dtype=torch.bfloat16, device="cuda").permute(0, 2, 1, 3)',
    ),
    "transposed_softmax_fp32_4096x8192": (
        "[-1, -1]", "[True, True]", "Float", "[0, 1]", _softmax([4096, 8192]),
        'torch.randn((8192, 4096), dtype=torch.float32, device="cuda").t()',
    ),
}  # fmt: skip


def _strided_script(shape: str, contiguity: str, dtype: str, order: str, body: str, tensor: str) -> str:
    layout = f"shape={shape}, contiguity={contiguity}, dtype=DataType.{dtype}, is_cpu=False"
    layout += f", stride_order={order}"
    return f"""import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor({layout})
    x = fd.ops.cast(T0, dtype=DataType.Float)
{body}
    fd.add_output(y)

inputs = [{tensor}]
fd.execute(inputs)
"""


def cases() -> dict[str, str]:
    found = {}
    for name, (shape, dtype, body, cast_back, per_channel) in PATTERNS.items():
        assert TAGS[dtype] in name, name
        output = f"fd.ops.cast(y, dtype=DataType.{dtype})" if cast_back else "y"
        extras = {"W": [shape[1]], "B": [shape[1]]} if per_channel else None
        found[f"{name}.py"] = fusion_script(shape, dtype, body, output, extras=extras)
    for name, parts in STRIDED.items():
        found[f"{name}.py"] = _strided_script(*parts)
    return found


def write(folder: Path) -> None:
    write_scripts(folder, cases())


if __name__ == "__main__":
    from column_cases import command_line, compare

    command_line(__doc__, write, compare)
