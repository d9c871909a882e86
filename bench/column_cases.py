"""The column normalizations, odd-width column reductions and long-row reductions of
`bench/results/2026-12-04-NVIDIA-H200-column-sweeps.txt` and `...-misaligned-sweeps.txt`, as fusion
scripts, and hfuse against torch.compile on any script (GPU only for `compare`):

    python3 bench/column_cases.py write DIR          # DIR/colnorm, odd, odd2, odd3, wide, rowred
    PYTHONPATH=. python3 bench/column_cases.py compare SCRIPT ...
    PYTHONPATH=. python3 bench/sweep_options.py --try misaligned_outer_tile=0 DIR/odd2/*.py

`compare` prints, per script, the device time of one call (its kernels' durations from torch.profiler,
L2 flushed, the median of 10) of hfuse and of torch.compile (dynamic=False) of hfuse's reference of the
fusion, their ratio, both do_bench medians, and hfuse's bandwidth over the inputs and outputs.
"""

from __future__ import annotations

import sys
from pathlib import Path

TORCH_DTYPES = {"BFloat16": "torch.bfloat16", "Float": "torch.float32"}
TAGS = {"Float": "fp32", "BFloat16": "bf16"}


def _script(shape: list[int], dtype: str, body: str, output: str) -> str:
    """A fusion of one contiguous input of `shape`, cast to fp32 as `x`, then `body`, writing `output`."""
    rank = len(shape)
    sizes, contiguity = ", ".join(["-1"] * rank), ", ".join(["True"] * rank)
    order = ", ".join(str(i) for i in reversed(range(rank)))
    tensor = f"shape=[{sizes}], contiguity=[{contiguity}], dtype=DataType.{dtype}, is_cpu=False"
    return f"""import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor({tensor}, stride_order=[{order}])
    x = fd.ops.cast(T0, dtype=DataType.Float)
{body}
    fd.add_output({output})

inputs = [torch.randn({tuple(shape)}, dtype={TORCH_DTYPES[dtype]}, device="cuda")]
fd.execute(inputs)
"""


def _center(shape: list[int], dim: int) -> str:
    kept = [d for d in range(len(shape)) if d != dim]
    return f"""    m = fd.ops.sum(x, dims=[{dim}], keepdim=False, dtype=DataType.Null)
    m = fd.ops.div(m, fd.define_scalar({float(shape[dim])}, dtype=DataType.Double))
    y = fd.ops.sub(x, fd.ops.broadcast_in_dim(m, shape={shape}, broadcast_dims={kept}))"""


def _batch_norm(shape: list[int]) -> str:
    return f"""    v, m = fd.ops.var_mean(x, dims=[0], correction=0, keepdim=False)
    d = fd.ops.sub(x, fd.ops.broadcast_in_dim(m, shape={shape}, broadcast_dims=[1]))
    r = fd.ops.rsqrt(fd.ops.add(v, fd.define_scalar(1e-5, dtype=DataType.Double)))
    y = fd.ops.mul(d, fd.ops.broadcast_in_dim(r, shape={shape}, broadcast_dims=[1]))"""


def _column_max_scale(shape: list[int]) -> str:
    return f"""    a = fd.ops.max(fd.ops.abs(x), dims=[0], keepdim=False, dtype=DataType.Null)
    y = fd.ops.div(x, fd.ops.broadcast_in_dim(a, shape={shape}, broadcast_dims=[1]))"""


def _odd_width(shape: list[int], dtype: str, center: bool) -> str:
    """A column sum (fp32), or a column centering cast back to the input's type."""
    body = "    m = fd.ops.sum(x, dims=[0], keepdim=False, dtype=DataType.Null)"
    if not center:
        return _script(shape, dtype, body + "\n    y = m", "y")
    centered = f"fd.ops.sub(x, fd.ops.broadcast_in_dim(m, shape={shape}, broadcast_dims=[1]))"
    body += f"""
    m = fd.ops.div(m, fd.define_scalar({float(shape[0])}, dtype=DataType.Double))
    y = fd.ops.cast({centered}, dtype=DataType.{dtype})"""
    return _script(shape, dtype, body, "y")


def _logsumexp(shape: list[int]) -> str:
    return f"""    m = fd.ops.max(x, dims=[1], keepdim=False, dtype=DataType.Null)
    e = fd.ops.exp(fd.ops.sub(x, fd.ops.broadcast_in_dim(m, shape={shape}, broadcast_dims=[0])))
    y = fd.ops.add(fd.ops.log(fd.ops.sum(e, dims=[1], keepdim=False, dtype=DataType.Null)), m)"""


def cases() -> dict[str, str]:
    """Script text by its path under the output folder."""
    normalizations = {
        "center_bf16_16384x4096": ([16384, 4096], "BFloat16", _center([16384, 4096], 0)),
        "center_fp32_65536x1024": ([65536, 1024], "Float", _center([65536, 1024], 0)),
        "center_fp32_12289x3001": ([12289, 3001], "Float", _center([12289, 3001], 0)),
        "center_bf16_2048x4096": ([2048, 4096], "BFloat16", _center([2048, 4096], 0)),
        "middle_center_bf16_8x2048x2048": ([8, 2048, 2048], "BFloat16", _center([8, 2048, 2048], 1)),
        "batchnorm_fp32_32768x1024": ([32768, 1024], "Float", _batch_norm([32768, 1024])),
        "batchnorm_bf16_8192x2048": ([8192, 2048], "BFloat16", _batch_norm([8192, 2048])),
        "colmax_bf16_8192x8192": ([8192, 8192], "BFloat16", _column_max_scale([8192, 8192])),
    }
    found = {
        f"colnorm/{name}.py": _script(shape, dtype, body, f"fd.ops.cast(y, dtype=DataType.{dtype})")
        for name, (shape, dtype, body) in normalizations.items()
    }
    for dtype in ("Float", "BFloat16"):
        for shape in ([12289, 3001], [12288, 3000], [12289, 3008], [4099, 5003], [16384, 4095]):
            for center in (True, False):
                name = f"{'center' if center else 'colsum'}_{TAGS[dtype]}_{shape[0]}x{shape[1]}"
                found[f"odd/{name}.py"] = _odd_width(shape, dtype, center)
    found.update(_misaligned_cases())
    rows = {
        "lse_fp32_2048x65536": ([2048, 65536], "Float", _logsumexp([2048, 65536])),
        "lse_bf16_4096x152064": ([4096, 152064], "BFloat16", _logsumexp([4096, 152064])),
        "rowmax_bf16_4096x50257": (
            [4096, 50257],
            "BFloat16",
            "    y = fd.ops.max(x, dims=[1], keepdim=False, dtype=DataType.Null)",
        ),
        "rowsumsq_bf16_2048x131072": (
            [2048, 131072],
            "BFloat16",
            "    y = fd.ops.sum(fd.ops.mul(x, x), dims=[1], keepdim=False, dtype=DataType.Null)",
        ),
    }
    for name, (shape, dtype, body) in rows.items():
        found[f"rowred/{name}.py"] = _script(shape, dtype, body, "y")
    return found


def _misaligned_cases() -> dict[str, str]:
    """The scripts that chose the tiles over rows off 16-byte boundaries (`odd2`, `odd3`) and the split of
    column normalizations with many tiles of rows (`wide`), at shapes not tuned on before."""
    found = {}
    normalizations = {
        "odd2/batchnorm_fp32_8191x2047": ([8191, 2047], "Float", _batch_norm([8191, 2047])),
        "odd2/batchnorm_bf16_16383x1023": ([16383, 1023], "BFloat16", _batch_norm([16383, 1023])),
        "odd2/colmax_bf16_8192x8191": ([8192, 8191], "BFloat16", _column_max_scale([8192, 8191])),
        "odd2/middle_center_bf16_8x2048x2047": ([8, 2048, 2047], "BFloat16", _center([8, 2048, 2047], 1)),
        "odd2/center_bf16_32768x1537": ([32768, 1537], "BFloat16", _center([32768, 1537], 0)),
        "wide/batchnorm_fp32_4096x32768": ([4096, 32768], "Float", _batch_norm([4096, 32768])),
        "wide/batchnorm_bf16_8192x20001": ([8192, 20001], "BFloat16", _batch_norm([8192, 20001])),
        "wide/colmax_bf16_8192x32000": ([8192, 32000], "BFloat16", _column_max_scale([8192, 32000])),
        "wide/middle_center_bf16_4x1024x24576": (
            [4, 1024, 24576],
            "BFloat16",
            _center([4, 1024, 24576], 1),
        ),
    }
    for name, (shape, dtype, body) in normalizations.items():
        found[f"{name}.py"] = _script(shape, dtype, body, f"fd.ops.cast(y, dtype=DataType.{dtype})")
    sums = [
        ("odd2", [8191, 12289], "BFloat16"),
        ("odd2", [8191, 12289], "Float"),
        ("odd2", [32768, 1537], "BFloat16"),
        ("odd2", [32768, 1537], "Float"),
        ("odd3", [4096, 50257], "BFloat16"),
        ("odd3", [8192, 30522], "Float"),
        ("odd3", [2048, 30522], "BFloat16"),
        ("odd3", [512, 4095], "BFloat16"),
        ("odd3", [2048, 1023], "Float"),
        ("odd3", [1024, 5003], "Float"),
    ]
    for folder, shape, dtype in sums:
        found[f"{folder}/colsum_{TAGS[dtype]}_{shape[0]}x{shape[1]}.py"] = _odd_width(shape, dtype, False)
    centers = [
        ("odd3", [8192, 30522], "BFloat16"),
        ("odd3", [4096, 20001], "Float"),
        *(
            ("wide", shape, dtype)
            for shape, dtype in (
                ([8192, 30522], "BFloat16"),
                ([8192, 30528], "BFloat16"),
                ([4096, 20000], "Float"),
                ([4096, 20001], "Float"),
                ([8192, 24576], "BFloat16"),
                ([2048, 50257], "BFloat16"),
            )
        ),
    ]
    for folder, shape, dtype in centers:
        found[f"{folder}/center_{TAGS[dtype]}_{shape[0]}x{shape[1]}.py"] = _odd_width(shape, dtype, True)
    return found


def write(folder: Path) -> None:
    for relative, text in cases().items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    print(f"{len(cases())} scripts under {folder}")


def compare(path: str) -> str:
    """The line `compare` prints for the script at `path`."""
    import torch
    from triton.testing import do_bench

    from hfuse.loader import load
    from hfuse.service.measure import baseline_function, device_us

    script = load(Path(path).read_text(), device="cuda")
    fd, inputs = script.fd, script.inputs
    outputs = fd.execute(inputs, alias_outputs=False)
    compiled = torch.compile(baseline_function(script.fusion, outputs, None), dynamic=False)
    compiled(*inputs)

    def hfuse() -> object:
        return fd.execute(inputs, alias_outputs=False)

    def torch_compile() -> object:
        return compiled(*inputs)

    ours, theirs = device_us(hfuse), device_us(torch_compile)
    ours_bench = do_bench(hfuse, return_mode="median") * 1e3
    theirs_bench = do_bench(torch_compile, return_mode="median") * 1e3
    nbytes = sum(t.numel() * t.element_size() for t in [*inputs, *outputs])
    return (
        f"{Path(path).stem:28} device hfuse {ours:7.1f} compile {theirs:7.1f} ({theirs / ours:4.2f}x)  "
        f"bench {ours_bench:7.1f} {theirs_bench:7.1f}  {nbytes / ours / 1e3:6.0f} GB/s"
    )


if __name__ == "__main__":
    command, *rest = sys.argv[1:] or ["--help"]
    if command == "write" and len(rest) == 1:
        write(Path(rest[0]))
    elif command == "compare" and rest:
        for script_path in rest:
            print(compare(script_path), flush=True)
    else:
        raise SystemExit(__doc__)
