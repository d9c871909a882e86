"""Every HFUSE_* environment setting, declared once. Read at call time, so tests can change them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Setting:
    env: str
    default: str
    help: str

    def raw(self) -> str:
        return os.environ.get(self.env, self.default)

    def as_int(self) -> int:
        from hfuse.errors import HfuseError

        text = self.raw()
        try:
            return int(text)
        except ValueError:
            raise HfuseError(f"{self.env}={text!r} is not a whole number ({self.help})") from None

    def as_float(self) -> float:
        from hfuse.errors import HfuseError

        text = self.raw()
        try:
            return float(text)
        except ValueError:
            raise HfuseError(f"{self.env}={text!r} is not a number ({self.help})") from None

    def as_bool(self) -> bool:
        return self.raw().strip().lower() in ("1", "true", "yes", "on")

    def as_path(self) -> Path:
        return Path(self.raw()).expanduser()


AUTO = "auto"


@dataclass(frozen=True, slots=True)
class MemoryLimit(Setting):
    """A size in bytes. `auto` follows the machine: a share of the GPU's memory where kernels run on a
    GPU, a fixed size where they run in Triton's interpreter on the CPU (slow beyond small tensors)."""

    gpu_share: float = 0.9
    interpreter_bytes: int = 1 << 30

    def as_bytes(self) -> int:
        if self.raw().strip().lower() != AUTO:
            return self.as_int()
        gpu = gpu_memory_bytes()
        return int(gpu * self.gpu_share) if gpu else self.interpreter_bytes


def gpu_memory_bytes() -> int | None:
    """The memory of the GPU kernels run on, or None without one."""
    import torch

    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory


CACHE_DIR = Setting("HFUSE_CACHE_DIR", str(Path.home() / ".cache" / "hfuse"), "folder for generated kernels")
MAX_SCRIPT_CHARS = Setting(
    "HFUSE_MAX_SCRIPT_CHARS", "200000", "longest script the loader reads, in characters"
)
MAX_OPS = Setting("HFUSE_MAX_OPS", "2000", "most ops (fd calls) one definition may record")
MAX_OP_INPUTS = Setting(
    "HFUSE_MAX_OP_INPUTS",
    "1024",
    "most inputs one op may take (the tensors of one cat); codegen grows with their square",
)
MAX_DEPTH = Setting(
    "HFUSE_MAX_DEPTH", "2000", "longest chain of ops from an input of a definition to an output"
)
MAX_RANK = Setting("HFUSE_MAX_RANK", "8", "highest tensor rank")
MAX_INPUT_BYTES = MemoryLimit(
    "HFUSE_MAX_INPUT_BYTES",
    AUTO,
    "total bytes of a script's inputs; auto: half of the GPU's memory, 4 GiB in the interpreter",
    gpu_share=0.5,
    interpreter_bytes=4 << 30,
)
MAX_NESTING = Setting("HFUSE_MAX_NESTING", "32", "deepest nesting of literals and expressions in a script")
MAX_STEPS = Setting(
    "HFUSE_MAX_STEPS",
    "100000",
    "most steps (statements and expressions evaluated) the loader takes to read one script",
)
MAX_CALL_DEPTH = Setting(
    "HFUSE_MAX_CALL_DEPTH", "64", "deepest nesting of function calls while the loader reads a script"
)
POISON_OUTPUTS = Setting(
    "HFUSE_POISON_OUTPUTS",
    "0",
    "fill outputs with NaN (or a sentinel) before launches (read once by the cached call of fd.execute)",
)
ALWAYS_VALIDATE = Setting(
    "HFUSE_ALWAYS_VALIDATE",
    "0",
    "check the first run of every plan against the torch reference even when an earlier process "
    "validated the same kernels",
)
VALIDATE_SPECIAL_VALUES = Setting(
    "HFUSE_VALIDATE_SPECIAL_VALUES",
    AUTO,
    "after the first run's check, run the kernels once more on copies of the inputs holding NaN and "
    "infinities and check those results too; auto: where kernels run on a GPU (1 or 0 to choose)",
)
PARALLEL_COMPILE = Setting(
    "HFUSE_PARALLEL_COMPILE",
    "1",
    "compile a new plan's kernels side by side in child processes before its first launches (GPU only)",
)
AUTOTUNE = Setting(
    "HFUSE_AUTOTUNE", "0", "time a few launch configurations of each kernel on the GPU and keep the fastest"
)
LINK_DB = Setting(
    "HFUSE_LINK_DB", str(Path.home() / ".cache" / "hfuse" / "links.sqlite3"), "short-link store"
)
MAX_LINK_CHARS = Setting(
    "HFUSE_MAX_LINK_CHARS", "60000", "longest definition (f=) a link may carry, in characters of its encoding"
)
MAX_SHORT_LINK_BYTES = Setting(
    "HFUSE_MAX_SHORT_LINK_BYTES", str(256 << 10), "largest definition a short link stores, in UTF-8 bytes"
)
MAX_SHORT_LINKS = Setting("HFUSE_MAX_SHORT_LINKS", "100000", "most definitions the short-link store keeps")
MAX_DIAGRAM_EXPRS = Setting("HFUSE_MAX_DIAGRAM_EXPRS", "400", "most ops drawn in one diagram")
MAX_OUTPUT_BYTES = MemoryLimit(
    "HFUSE_MAX_OUTPUT_BYTES",
    AUTO,
    "total bytes one run allocates (kernel outputs and intermediates, and the reference's when "
    "validating); auto: 90% of the GPU's memory, 16 GiB in the interpreter",
    gpu_share=0.9,
    interpreter_bytes=16 << 30,
)
RUN_TIMEOUT_S = Setting(
    "HFUSE_RUN_TIMEOUT_S", "120", "seconds one run may last in the worker (load, compile, launch, check)"
)
RUN_QUEUE_TIMEOUT_S = Setting(
    "HFUSE_RUN_QUEUE_TIMEOUT_S",
    "300",
    "seconds a run (or a compile for the diagrams) waits for those of other sessions before giving up",
)
WORKER_OVERHEAD_BYTES = Setting(
    "HFUSE_WORKER_OVERHEAD_BYTES",
    str(2 << 30),
    "host memory a run's worker may take beyond HFUSE_MAX_INPUT_BYTES + HFUSE_MAX_OUTPUT_BYTES (Python, "
    "torch, Triton, the generated modules): the three together are the worker's data limit",
)
COMPILE_TIMEOUT_S = Setting(
    "HFUSE_COMPILE_TIMEOUT_S",
    "60",
    "seconds the app's compile of a definition (segmentation and codegen of both strategies) may last",
)
COMPILE_WORKERS = Setting(
    "HFUSE_COMPILE_WORKERS", "2", "worker processes that compile definitions for the app's diagrams"
)
COMPILE_MAX_BYTES = Setting(
    "HFUSE_COMPILE_MAX_BYTES", str(4 << 30), "host memory a compile worker may take (its data limit)"
)
TEST_FAULTS = Setting(
    "HFUSE_TEST_FAULTS", "0", "lets run requests ask for a fault (hang, crash, exit, oom, cuda_error): tests"
)
