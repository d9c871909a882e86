"""Faults inside one process: a damaged kernel cache, a kernel Triton rejects, a run too big for the
device, an out-of-memory, outputs that disagree with the reference. Each is an HfuseError that says
what failed, and the process goes on running fusions."""

from __future__ import annotations

import dataclasses
import mmap
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from cache_kernels import kernel_source, scale_kernel_source

import hfuse
from hfuse import pipeline, settings
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import KernelError, LimitError
from hfuse.ir import Fusion, Op
from hfuse.runtime import execute, memory
from hfuse.runtime import segments as segments_module
from hfuse.runtime.kernel_cache import load_kernel, source_hash
from hfuse.runtime.launcher import KernelLauncher
from hfuse.service.request import RunRequest, run_request

pytestmark = pytest.mark.usefixtures("fresh_cache")


def _fusion(n: int = 256, op: Op = Op.MUL) -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([n], DataType.Float)
    (out,) = b.add(op, [x, x])
    b.add_output(out)
    return b.build()


def _run_and_check(fusion: Fusion, device: str) -> None:
    x = torch.randn(fusion.value(fusion.inputs[0]).shape, device=device)
    (out,), _, _ = execute(fusion, [x])
    expected = x * x if fusion.exprs[0].op is Op.MUL else x + x
    torch.testing.assert_close(out, expected)


# ---- the kernel cache -----------------------------------------------------------------------------

DAMAGES = {
    "truncated": lambda source: source[: len(source) // 2],
    "edited": lambda source: source.replace("* 3", "* 4"),
    "garbage": lambda source: "\x00\xff not python",
    "empty": lambda source: "",
}


@pytest.mark.parametrize("damage", list(DAMAGES.values()), ids=list(DAMAGES))
def test_a_damaged_cache_entry_is_rewritten_not_imported(damage, tmp_path, device):
    source = scale_kernel_source(3, tmp_path.name)
    folder = tmp_path / "kernels"
    folder.mkdir()
    path = folder / f"{source_hash(source)}.py"
    path.write_text(damage(source), encoding="utf-8")
    module = load_kernel(kernel_source(source, "triple", 3))
    assert path.read_text(encoding="utf-8") == source
    x = torch.arange(200, dtype=torch.float32, device=device)
    out = torch.full_like(x, float("nan"))
    module.launch(x, out)
    torch.testing.assert_close(out, x * 3)
    assert sorted(p.name for p in folder.iterdir()) == [path.name]  # no bytecode cache, no temporary file


def test_a_file_changed_between_writing_and_importing_is_refused(tmp_path, monkeypatch):
    source = scale_kernel_source(3, tmp_path.name)
    from hfuse.runtime import kernel_cache

    written = kernel_cache._cached_file

    def written_then_edited(kernel, digest):
        path = written(kernel, digest)
        path.write_text(source.replace("* 3", "* 4"), encoding="utf-8")
        return path

    monkeypatch.setattr(kernel_cache, "_cached_file", written_then_edited)
    with pytest.raises(
        KernelError,
        match=r"kernel triple \(segment 3\): .*failed to import .*content no longer matches its name",
    ):
        load_kernel(kernel_source(source, "triple", 3))


def test_a_stale_temporary_file_from_a_killed_writer_is_ignored(tmp_path, device):
    source = scale_kernel_source(3, tmp_path.name)
    digest = source_hash(source)
    folder = tmp_path / "kernels"
    folder.mkdir()
    stale = folder / f"{digest}.k1ll3d.tmp"
    stale.write_text(source[:40], encoding="utf-8")  # what a writer killed mid-write leaves
    module = load_kernel(kernel_source(source, "triple", 3))
    assert (folder / f"{digest}.py").read_text(encoding="utf-8") == source
    x = torch.ones(10, device=device)
    out = torch.empty_like(x)
    module.launch(x, out)
    torch.testing.assert_close(out, x * 3)


RACES = 1000
SENTINEL = -7777.0  # what the tampered kernel writes; the real one writes x * 3


def test_a_cache_file_swapped_while_kernels_load_and_launch_never_runs(tmp_path, device):
    """A process swaps the file of the kernel being loaded for tampered code as fast as it can, while this
    one loads and launches 1,000 kernels: every launch computes what was generated, or the load is refused."""
    folder = tmp_path / "kernels"
    folder.mkdir()
    tampered = tmp_path / "tampered.py"
    tampered.write_text(scale_kernel_source(3).replace("* 3", f"* 0 + {SENTINEL}"), encoding="utf-8")
    shared_file = tmp_path / "shared"
    shared_file.write_bytes(bytes(4096))
    swapper = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("cache_swapper.py")), str(shared_file), str(tampered)]
    )
    x = torch.arange(64, dtype=torch.float32, device=device)
    out = torch.empty_like(x)
    ran = refused = tampered_at_launch = 0
    try:
        with open(shared_file, "r+b") as handle, mmap.mmap(handle.fileno(), 0) as shared:
            for race in range(RACES):
                source = scale_kernel_source(3, f"{tmp_path.name} race {race}")
                path = str(folder / f"{source_hash(source)}.py").encode()
                shared[16 : 16 + len(path)] = path
                try:
                    module = load_kernel(kernel_source(source, "triple", 3))
                except KernelError as err:
                    assert "content no longer matches its name" in str(err)
                    refused += 1
                    continue
                tampered_at_launch += (folder / f"{source_hash(source)}.py").read_bytes() != source.encode()
                out.fill_(float("nan"))
                module.launch(x, out)
                assert SENTINEL not in out.tolist(), f"race {race}: the tampered kernel ran"
                torch.testing.assert_close(out, x * 3)
                ran += 1
            shared[0] = 1
            swaps = int.from_bytes(shared[8:16], "little")
    finally:
        swapper.kill()
        swapper.wait()
    print(
        f"{RACES} races: {swaps} swaps, {ran} launches right ({tampered_at_launch} with the file "
        f"tampered at launch), {refused} loads refused, 0 tampered runs"
    )
    assert ran + refused == RACES
    assert swaps > RACES and tampered_at_launch > 0  # the swapper really raced the launches


# ---- kernels that do not compile -----------------------------------------------------------------

# A kernel Triton refuses when it compiles it (or interprets it): tl.arange needs a power-of-2 range.
REJECTED_BY_TRITON = """\
import triton
import triton.language as tl


@triton.jit
def rejected_kernel(out_ptr):
    offsets = tl.arange(0, 3)
    tl.store(out_ptr + offsets, offsets)


def launch(*args):
    rejected_kernel[(1,)](args[-1])
"""

BAD_SOURCES = [
    ("def launch(:\n", r"failed to import \(SyntaxError"),
    (REJECTED_BY_TRITON, r"failed to launch \(\w+: (?s:.*)power of 2"),  # a GPU compile error spans lines
]


@pytest.mark.parametrize("bad_source, triton_message", BAD_SOURCES, ids=["python-syntax", "triton-rejects"])
def test_a_kernel_that_does_not_compile_is_a_kernel_error_and_the_next_fusion_runs(
    bad_source, triton_message, monkeypatch, tmp_path, device
):
    real_generate = pipeline.generate

    def bad_generate(group, fusion):
        kernel = real_generate(group, fusion)
        return dataclasses.replace(kernel, source=bad_source + f"# {tmp_path.name}\n")

    monkeypatch.setattr(pipeline, "generate", bad_generate)
    broken = _fusion(op=Op.ADD)
    inputs = [torch.randn(256, device=device)]
    with pytest.raises(KernelError, match=rf"kernel hfuse_pointwise_g0 \(segment 0\)[: ]+.*{triton_message}"):
        execute(broken, inputs)
    monkeypatch.setattr(pipeline, "generate", real_generate)
    _run_and_check(_fusion(n=128), device)


# ---- memory --------------------------------------------------------------------------------------


def test_run_bytes_count_kernel_outputs_and_the_reference_when_validating():
    compiled = hfuse.compile(_fusion(n=256))
    assert memory.run_bytes(compiled, validating=False) == 256 * 4
    assert memory.run_bytes(compiled, validating=True) == 2 * 256 * 4


# The fusion's results take 1 KiB (the definition is within a 1.5 KiB limit); its first run allocates
# 2 KiB: the kernel's output and the reference's.
LIMITS = [  # HFUSE_MAX_OUTPUT_BYTES, (free, total) device bytes or None without a GPU, message
    (
        "1500",
        None,
        r"would allocate 2\.0 KiB \(2048 bytes\), above the limit of 1\.5 KiB \(1500 bytes\) for one run: "
        r"use smaller inputs, or set HFUSE_MAX_OUTPUT_BYTES",
    ),
    (
        str(1 << 30),
        (1500, 4096),
        r"would allocate 2\.0 KiB \(2048 bytes\) on the GPU, but only 1\.5 KiB \(1500 bytes\) of its "
        r"4\.0 KiB \(4096 bytes\) are free.*HFUSE_MAX_OUTPUT_BYTES",
    ),
]


@pytest.mark.parametrize("limit, device_memory, match", LIMITS, ids=["setting", "free-device-memory"])
def test_a_run_too_big_is_refused_before_it_allocates(limit, device_memory, match, monkeypatch, device):
    monkeypatch.setenv(settings.MAX_OUTPUT_BYTES.env, limit)
    if device_memory is not None:
        monkeypatch.setattr(memory, "has_cuda", lambda: True)
        monkeypatch.setattr(memory, "free_device_bytes", lambda: device_memory)
    allocations = []
    real_allocate = segments_module._allocate
    monkeypatch.setattr(segments_module, "_allocate", lambda *a: allocations.append(a) or real_allocate(*a))
    fusion = _fusion(n=256)
    with pytest.raises(LimitError, match=match):
        execute(fusion, [torch.randn(256, device=device)])
    assert allocations == []


def test_out_of_memory_during_a_run_is_a_limit_error_and_the_process_goes_on(monkeypatch, device):
    real_allocate = segments_module._allocate

    def out_of_memory(*args):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.00 KiB")

    monkeypatch.setattr(segments_module, "_allocate", out_of_memory)
    fusion = _fusion(n=256)
    with pytest.raises(
        LimitError,
        match=r"backend hfuse\) ran out of device memory \(CUDA out of memory\. Tried to allocate "
        r"1\.00 KiB\); it needs about 2\.0 KiB \(2048 bytes\).*HFUSE_MAX_OUTPUT_BYTES",
    ):
        execute(fusion, [torch.randn(256, device=device)])
    monkeypatch.setattr(segments_module, "_allocate", real_allocate)
    _run_and_check(fusion, device)


CPU_ALLOCATOR_ERROR = (
    "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to "
    "allocate 1024 bytes. Error code 12 (Cannot allocate memory)"
)
HOST_OUT_OF_MEMORY = [
    ("cpu-allocator", RuntimeError(CPU_ALLOCATOR_ERROR), r"\[enforce fail at alloc_cpu\.cpp:127\] err == 0"),
    ("python", MemoryError(), r"MemoryError"),
]


class _LauncherFailingOnce:
    """A kernel launcher whose next launch fails with `failures`' error, as an allocation inside Triton's
    interpreter would; later launches run."""

    failures: list[BaseException] = []

    def __init__(self, module, allocate):
        self.real = KernelLauncher(module, allocate)

    def __call__(self, args):
        if self.failures:
            raise self.failures.pop()
        return self.real(args)

    def __getattr__(self, name):
        return getattr(self.real, name)


@pytest.mark.parametrize(
    "error, detail", [c[1:] for c in HOST_OUT_OF_MEMORY], ids=[c[0] for c in HOST_OUT_OF_MEMORY]
)
def test_host_out_of_memory_in_a_launch_is_a_limit_error_and_the_process_goes_on(
    error, detail, monkeypatch, device
):
    monkeypatch.setattr(_LauncherFailingOnce, "failures", [error])
    monkeypatch.setattr(segments_module, "KernelLauncher", _LauncherFailingOnce)
    fusion = _fusion(n=128, op=Op.ADD)
    with pytest.raises(
        LimitError, match=rf"backend hfuse\) ran out of device memory \({detail}.*HFUSE_MAX_OUTPUT_BYTES"
    ):
        execute(fusion, [torch.randn(128, device=device)])
    _run_and_check(fusion, device)


# A process whose data is limited a little above what it holds: the run's output does not fit.
UNDER_A_DATA_LIMIT = """
import resource, re, torch
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.errors import LimitError
from hfuse.ir import Op
from hfuse.runtime import execute

b = FusionBuilder()
x = b.define_tensor([64 << 20], DataType.Float)
(out,) = b.add(Op.MUL, [x, x])
b.add_output(out)
fusion = b.build()
inputs = [torch.ones(64 << 20)]  # 256 MiB, made before the limit
held = int(re.search(r"VmData:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) * 1024
resource.setrlimit(resource.RLIMIT_DATA, (held + (96 << 20), resource.RLIM_INFINITY))
try:
    execute(fusion, inputs)
except LimitError as err:
    print("LimitError:", err)
"""


@pytest.mark.skipif(torch.cuda.is_available(), reason="a data limit bounds host memory, not the GPU's")
def test_a_run_past_the_process_data_limit_is_a_limit_error_that_names_the_limit():
    done = subprocess.run(
        [sys.executable, "-c", UNDER_A_DATA_LIMIT], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "LimitError: this run of the fusion (backend hfuse) ran out of device memory ("
    )
    assert "this process may take " in done.stdout and "of host memory" in done.stdout


# ---- numbers that disagree -----------------------------------------------------------------------

SCRIPT = """
from nvfuser import FusionDefinition, DataType
import torch
inputs = [torch.randn(4, 64, device="cuda")]
with FusionDefinition() as fd:
    x = fd.from_pytorch(inputs[0])
    y = fd.ops.add(x, x)
    fd.add_output(y)
"""


def test_a_mismatch_names_the_output_and_the_kernel_and_the_next_run_is_right(monkeypatch):
    fusion = hfuse.load(SCRIPT).fusion
    module = load_kernel(hfuse.compile(fusion).kernels[0])
    real_launch = module.launch

    def off_by_one(*args):
        real_launch(*args)
        args[-1].add_(1)

    monkeypatch.setattr(module, "launch", off_by_one)
    result = run_request(RunRequest(SCRIPT))
    assert result.failure is not None and result.failure.kind == "ValidationError"
    assert result.failure.message.startswith("output T1 (")
    assert "written by kernel hfuse_pointwise_g0 (segment 0), differs from the torch reference" in (
        result.failure.message
    )
    monkeypatch.setattr(module, "launch", real_launch)
    fixed = run_request(RunRequest(SCRIPT))
    assert fixed.ok and fixed.outputs[0].max_abs_error == 0.0
