"""The column normalizations, odd-width column reductions and long-row reductions of
`bench/results/2026-12-04-NVIDIA-H200-column-sweeps.txt`, `...-misaligned-sweeps.txt` and
`...-whole-rows.txt`, as fusion scripts, and hfuse against torch.compile on any script (GPU only for
`compare`):

    python3 bench/column_cases.py write DIR          # DIR/colnorm, odd, odd2, odd3, wide, rowred, whole
    PYTHONPATH=. python3 bench/column_cases.py compare SCRIPT ...
    PYTHONPATH=. python3 bench/sweep_options.py --try misaligned_outer_tile=0 DIR/odd2/*.py

`compare` prints, per script, the device time of one call (its kernels' durations from torch.profiler,
L2 flushed, the median of 10) of hfuse and of torch.compile (dynamic=False) of hfuse's reference of the
fusion, their ratio, that of a clone of the bytes the fusion moves (each input's storage read and each
output written once) and its share of each, both do_bench medians, and hfuse's bandwidth. Where Dynamo
gives up on the reference (its recompile limit, logged), torch.compile's time is eager's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

TORCH_DTYPES = {"BFloat16": "torch.bfloat16", "Float": "torch.float32", "Half": "torch.float16"}
TAGS = {"Float": "fp32", "BFloat16": "bf16", "Half": "fp16"}


def fusion_script(
    shape: list[int],
    dtype: str,
    body: str,
    output: str,
    extras: dict[str, list[int]] | None = None,
    also: tuple[str, ...] = (),
) -> str:
    """A fusion of one contiguous input of `shape`, cast to fp32 as `x`, and of `extras` (name: shape, of
    the same type, each cast to fp32 as its name in lower case), then `body`, writing `output` and the
    values named in `also`."""
    inputs = {"T0": shape, **(extras or {})}
    lines = []
    for name, dims in inputs.items():
        rank = len(dims)
        sizes, contiguity = ", ".join(["-1"] * rank), ", ".join(["True"] * rank)
        order = ", ".join(str(i) for i in reversed(range(rank)))
        tensor = f"shape=[{sizes}], contiguity=[{contiguity}], dtype=DataType.{dtype}, is_cpu=False"
        lines.append(f"    {name} = fd.define_tensor({tensor}, stride_order=[{order}])")
    for name in inputs:
        lines.append(
            f"    {'x' if name == 'T0' else name.lower()} = fd.ops.cast({name}, dtype=DataType.Float)"
        )
    writes = "\n".join(f"    fd.add_output({name})" for name in (output, *also))
    tensors = ", ".join(
        f'torch.randn({tuple(dims)}, dtype={TORCH_DTYPES[dtype]}, device="cuda")' for dims in inputs.values()
    )
    definitions = "\n".join(lines)
    return f"""import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
{definitions}
{body}
{writes}

inputs = [{tensors}]
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
        return fusion_script(shape, dtype, body + "\n    y = m", "y")
    centered = f"fd.ops.sub(x, fd.ops.broadcast_in_dim(m, shape={shape}, broadcast_dims=[1]))"
    body += f"""
    m = fd.ops.div(m, fd.define_scalar({float(shape[0])}, dtype=DataType.Double))
    y = fd.ops.cast({centered}, dtype=DataType.{dtype})"""
    return fusion_script(shape, dtype, body, "y")


def logsumexp(shape: list[int]) -> str:
    return f"""    m = fd.ops.max(x, dims=[1], keepdim=False, dtype=DataType.Null)
    e = fd.ops.exp(fd.ops.sub(x, fd.ops.broadcast_in_dim(m, shape={shape}, broadcast_dims=[0])))
    y = fd.ops.add(fd.ops.log(fd.ops.sum(e, dims=[1], keepdim=False, dtype=DataType.Null)), m)"""


def _row_broadcast(name: str, shape: list[int], dims: str = "[0]") -> str:
    return f"fd.ops.broadcast_in_dim({name}, shape={shape}, broadcast_dims={dims})"


def _softmax(shape: list[int], dtype: str, source: str = "x", log: bool = False) -> str:
    if log:
        out = f"fd.ops.sub(d, {_row_broadcast('fd.ops.log(s)', shape)})"
    else:
        out = f"fd.ops.div(fd.ops.exp(d), {_row_broadcast('s', shape)})"
    return f"""    m = fd.ops.max({source}, dims=[1], keepdim=False, dtype=DataType.Null)
    d = fd.ops.sub({source}, {_row_broadcast("m", shape)})
    s = fd.ops.sum(fd.ops.exp(d), dims=[1], keepdim=False, dtype=DataType.Null)
    y = fd.ops.cast({out}, dtype=DataType.{dtype})"""


def _layer_norm(shape: list[int], dtype: str, source: str = "x", affine: bool = False) -> str:
    normed = f"fd.ops.mul(c, {_row_broadcast('r', shape)})"
    if affine:
        scaled = f"fd.ops.mul({normed}, {_row_broadcast('w', shape, '[1]')})"
        normed = f"fd.ops.add({scaled}, {_row_broadcast('b', shape, '[1]')})"
    return f"""    v, mu = fd.ops.var_mean({source}, dims=[1], correction=0, keepdim=False)
    c = fd.ops.sub({source}, {_row_broadcast("mu", shape)})
    r = fd.ops.rsqrt(fd.ops.add(v, fd.define_scalar(1e-5, dtype=DataType.Double)))
    y = fd.ops.cast({normed}, dtype=DataType.{dtype})"""


def _rms_norm(shape: list[int], dtype: str, weighted: bool = False) -> str:
    normed = f"fd.ops.mul(x, {_row_broadcast('r', shape)})"
    if weighted:
        normed = f"fd.ops.mul({normed}, {_row_broadcast('w', shape, '[1]')})"
    return f"""    q = fd.ops.sum(fd.ops.mul(x, x), dims=[1], keepdim=False, dtype=DataType.Null)
    q = fd.ops.div(q, fd.define_scalar({float(shape[1])}, dtype=DataType.Double))
    r = fd.ops.rsqrt(fd.ops.add(q, fd.define_scalar(1e-6, dtype=DataType.Double)))
    y = fd.ops.cast({normed}, dtype=DataType.{dtype})"""


def _whole_row_cases() -> dict[str, str]:
    """The rows of 16385-32768 columns that chose `Options.persistent_reread_cols` (`whole`)."""
    found = {}
    plain = {
        "softmax": lambda shape, dtype: _softmax(shape, dtype),
        "log_softmax": lambda shape, dtype: _softmax(shape, dtype, log=True),
        "layernorm": lambda shape, dtype: _layer_norm(shape, dtype),
        "rmsnorm": lambda shape, dtype: _rms_norm(shape, dtype),
        "variance": lambda shape, dtype: (
            "    y, _ = fd.ops.var_mean(x, dims=[1], correction=0, keepdim=False)"
        ),
        "lse": lambda shape, dtype: logsumexp(shape),
    }
    for kind, shape, dtype in [
        ("softmax", [4096, 16400], "Float"),
        ("softmax", [4096, 20000], "Float"),
        ("softmax", [4096, 32000], "Float"),
        ("softmax", [300, 30000], "Float"),
        ("softmax", [4096, 20000], "BFloat16"),
        ("softmax", [4096, 24000], "BFloat16"),
        ("softmax", [4096, 32000], "BFloat16"),
        ("softmax", [1024, 32000], "BFloat16"),
        ("softmax", [8192, 30522], "BFloat16"),
        ("log_softmax", [4096, 32000], "Float"),
        ("log_softmax", [4096, 32000], "BFloat16"),
        ("layernorm", [4096, 32768], "Float"),
        ("layernorm", [512, 32768], "Float"),
        ("layernorm", [4096, 20480], "BFloat16"),
        ("rmsnorm", [2048, 28672], "BFloat16"),
        ("rmsnorm", [2048, 28673], "Float"),
        ("variance", [4096, 32000], "Float"),
        ("lse", [4096, 32000], "BFloat16"),
    ]:
        found[f"whole/{kind}_{TAGS[dtype]}_{shape[0]}x{shape[1]}.py"] = fusion_script(
            shape, dtype, plain[kind](shape, dtype), "y"
        )
    for shape, dtype in (([4096, 20480], "BFloat16"), ([4096, 32768], "Float")):
        body = "    a = fd.ops.add(x, r0)\n" + _layer_norm(shape, dtype, source="a")
        body += f"\n    a = fd.ops.cast(a, dtype=DataType.{dtype})"
        name = f"whole/add_layernorm_{TAGS[dtype]}_{shape[0]}x{shape[1]}.py"
        found[name] = fusion_script(shape, dtype, body, "y", extras={"R0": shape}, also=("a",))
    shape = [4096, 32000]
    body = "    z = fd.ops.add(fd.ops.mul(x, fd.define_scalar(0.125, dtype=DataType.Double)), r0)\n"
    found["whole/masked_softmax_bf16_4096x32000.py"] = fusion_script(
        shape, "BFloat16", body + _softmax(shape, "BFloat16", source="z"), "y", extras={"R0": shape}
    )
    for shape, dtype in (([4096, 20480], "BFloat16"), ([4096, 32768], "Float"), ([4096, 16384], "BFloat16")):
        found[f"whole/affine_layernorm_{TAGS[dtype]}_{shape[0]}x{shape[1]}.py"] = fusion_script(
            shape, dtype, _layer_norm(shape, dtype, affine=True), "y", extras={"W": shape[1:], "B": shape[1:]}
        )
    for shape, dtype in (([4096, 20480], "BFloat16"), ([2048, 28672], "Float")):
        found[f"whole/weighted_rmsnorm_{TAGS[dtype]}_{shape[0]}x{shape[1]}.py"] = fusion_script(
            shape, dtype, _rms_norm(shape, dtype, weighted=True), "y", extras={"W": shape[1:]}
        )
    return found


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
        f"colnorm/{name}.py": fusion_script(shape, dtype, body, f"fd.ops.cast(y, dtype=DataType.{dtype})")
        for name, (shape, dtype, body) in normalizations.items()
    }
    for dtype in ("Float", "BFloat16"):
        for shape in ([12289, 3001], [12288, 3000], [12289, 3008], [4099, 5003], [16384, 4095]):
            for center in (True, False):
                name = f"{'center' if center else 'colsum'}_{TAGS[dtype]}_{shape[0]}x{shape[1]}"
                found[f"odd/{name}.py"] = _odd_width(shape, dtype, center)
    found.update(_misaligned_cases())
    found.update(_whole_row_cases())
    rows = {
        "lse_fp32_2048x65536": ([2048, 65536], "Float", logsumexp([2048, 65536])),
        "lse_bf16_4096x152064": ([4096, 152064], "BFloat16", logsumexp([4096, 152064])),
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
        found[f"rowred/{name}.py"] = fusion_script(shape, dtype, body, "y")
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
        found[f"{name}.py"] = fusion_script(shape, dtype, body, f"fd.ops.cast(y, dtype=DataType.{dtype})")
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


def write_scripts(folder: Path, scripts: dict[str, str]) -> None:
    """Each script's text at its path under `folder`."""
    for relative, text in scripts.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"{len(scripts)} scripts under {folder}")


def write(folder: Path) -> None:
    write_scripts(folder, cases())


def compare(path: str, plain: Callable[..., list] | None = None) -> str:
    """The line `compare` prints for the script at `path`; torch.compile compiles `plain` (the example's
    plain torch function) when given, else hfuse's reference of the fusion."""
    import torch
    from triton.testing import do_bench

    from hfuse.loader import load
    from hfuse.service.measure import baseline_function, device_us

    torch._dynamo.reset()  # compiles of earlier scripts would count toward this one's recompile limit
    script = load(Path(path).read_text(), device="cuda")
    fd, inputs = script.fd, script.inputs
    outputs = fd.execute(inputs, alias_outputs=False)
    compiled = torch.compile(baseline_function(script.fusion, outputs, plain), dynamic=False)
    compiled(*inputs)

    def hfuse() -> object:
        return fd.execute(inputs, alias_outputs=False)

    def torch_compile() -> object:
        return compiled(*inputs)

    ours, theirs = device_us(hfuse), device_us(torch_compile)
    ours_bench = do_bench(hfuse, return_mode="median") * 1e3
    theirs_bench = do_bench(torch_compile, return_mode="median") * 1e3
    # bytes moved: each input's storage read once (an expanded input's once), each output written once
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
    nbytes = sum(t.untyped_storage().nbytes() for t in tensors) + sum(t.nbytes for t in outputs)
    copy = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
    clone = device_us(copy.clone)
    return (
        f"{Path(path).stem:34} device hfuse {ours:7.1f} compile {theirs:7.1f} ({theirs / ours:4.2f}x) "
        f"clone {clone:7.1f} ({clone / ours:4.0%} of it in hfuse, {clone / theirs:4.0%} in compile)  "
        f"bench {ours_bench:7.1f} {theirs_bench:7.1f}  {nbytes / ours / 1e3:6.0f} GB/s"
    )


def command_line(usage: str, write: Callable[[Path], None], compare: Callable[[str], str]) -> None:
    """`write DIR` or `compare SCRIPT ...` from the command line, else `usage`."""
    command, *rest = sys.argv[1:] or ["--help"]
    if command == "write" and len(rest) == 1:
        write(Path(rest[0]))
    elif command == "compare" and rest:
        for script_path in rest:
            print(compare(script_path), flush=True)
    else:
        raise SystemExit(usage)


if __name__ == "__main__":
    command_line(__doc__, write, compare)
