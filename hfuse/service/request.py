"""One run of a script, as the app asks for it: the request, its picklable result, and how it is run.

`run_request` loads the script text, runs it with `execute` (which validates the first run of every plan
against the torch reference), compares each output with the reference and profiles it; on a GPU, when
asked, it measures the run beside torch eager, torch.compile and a clone of the same bytes with the
benchmark's protocol (`hfuse.service.measure`), under the run's own output contract. The result holds
no tensors: each output is its shape, dtype, a short preview and its comparison. A failure is the
HfuseError's class name, reason, loc and expr, rebuilt on demand.
`hfuse.service.worker` runs requests in a separate process; `run_request` runs one in this process.
"""

from __future__ import annotations

import gc
import json
import time
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch

from hfuse import errors
from hfuse.backends import HFUSE
from hfuse.codegen.model import KernelSource
from hfuse.errors import HfuseError, KernelError, Loc
from hfuse.ir import Fusion
from hfuse.loader import default_device, load
from hfuse.pipeline import Progress
from hfuse.reference import evaluate
from hfuse.runtime.device import has_cuda
from hfuse.runtime.executor import execute
from hfuse.runtime.memory import (
    check_free_device_memory,
    out_of_memory_detail,
    out_of_memory_error,
    tensor_bytes,
)
from hfuse.runtime.profile_model import FusionProfile
from hfuse.segment.override import Merge
from hfuse.service.measure import Timing, compare_case
from hfuse.tolerance import compare, reduction_size

PREVIEW_ELEMENTS = 8  # leading elements of each output sent back
TEST_FAULTS = ("hang", "crash", "exit", "oom", "host_oom", "cuda_error")  # see hfuse.service.worker
MAX_MESSAGE_CHARS = 8000  # a failure's reason beyond this is cut (a Triton error can quote a lot)

# The error classes a failure can be rebuilt as.
_ERROR_CLASSES = {
    cls.__name__: cls
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, HfuseError)
}
# Words of errors after which the CUDA context of the process is unusable.
_DEVICE_FAULT_WORDS = (
    "CUDA error",
    "Triton Error [CUDA]",
    "CUDA_ERROR",
    "cudaError",
    "illegal memory access",
)


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What to run: a script's text (for a segments dump, which segment), the backend, a merge of two of
    its segments where one is asked for and, where it differs from the default, the device."""

    text: str
    backend: str = HFUSE
    alias_outputs: bool = True
    device: str | None = None  # None: 'cuda' when there is a GPU, else 'cpu'
    compare: bool = False  # on a GPU: measure it beside torch eager, torch.compile and a clone
    segment: int = 0  # which definition of a segments dump to run
    merge: Merge | None = None  # two segments of the backend's plan to run merged
    test_fault: str = ""  # for hfuse's tests: honoured only by a worker started with HFUSE_TEST_FAULTS=1

    def __post_init__(self) -> None:
        if self.test_fault and self.test_fault not in TEST_FAULTS:
            raise ValueError(f"unknown test fault {self.test_fault!r}: one of {', '.join(TEST_FAULTS)}")
        if self.compare and self.merge is not None:
            raise ValueError("compare measures the segmenter's own plan: ask for it without a merge")


@dataclass(frozen=True, slots=True)
class OutputSummary:
    """One returned output, checked against the torch reference."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    preview: tuple[Any, ...]  # the first PREVIEW_ELEMENTS elements in row-major order, as Python numbers
    ok: bool
    max_abs_error: float
    message: str


@dataclass(frozen=True, slots=True)
class RunFailure:
    """Why a run failed: the HfuseError's class name, reason, loc and expr, enough to raise it again."""

    kind: str  # "ParseError", "LimitError", "KernelError", ...
    reason: str
    loc: Loc | None = None
    expr: str | None = None
    device_fault: bool = False  # the error left the process's CUDA context unusable

    @classmethod
    def of(cls, err: HfuseError, *, device_fault: bool = False) -> RunFailure:
        kind = next(c.__name__ for c in type(err).__mro__ if c.__name__ in _ERROR_CLASSES)
        reason = err.reason
        if len(reason) > MAX_MESSAGE_CHARS:
            reason = reason[:MAX_MESSAGE_CHARS] + " ... (cut)"
        return cls(kind, reason, err.loc, err.expr, device_fault)

    @property
    def message(self) -> str:
        return str(self.exception())

    def exception(self) -> HfuseError:
        """The error again, as the class it was raised as."""
        return _ERROR_CLASSES[self.kind](self.reason, loc=self.loc, expr=self.expr)

    def with_note(self, note: str) -> RunFailure:
        return replace(self, reason=f"{self.reason}\n{note}")


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one run gives back. `failure` is None when it ran; the outputs may still disagree (see `ok`)."""

    failure: RunFailure | None = None
    outputs: tuple[OutputSummary, ...] = ()
    profile: FusionProfile | None = None  # of the warm call on a GPU, of the first call on CPU
    first_call_ms: float = 0.0  # compile, first launches, validation and host work of the first call
    first_call_stages: tuple[tuple[str, float], ...] = ()  # loading the script, then the first run's stages
    kernels: tuple[KernelSource, ...] = ()  # the generated Triton sources
    comparison: tuple[Timing, ...] = ()  # the run and its baselines, measured side by side (GPU only)
    comparison_notes: tuple[str, ...] = ()  # kernel counts torch.profiler did not confirm
    started_at: float = 0.0  # time.time() when the run began, and ended, in the process that ran it
    finished_at: float = 0.0
    waited_s: float = 0.0  # time spent waiting for the runs of other sessions

    @property
    def ok(self) -> bool:
        return self.failure is None and all(output.ok for output in self.outputs)

    def to_json(self) -> str:
        """Everything the run gave, as one JSON object (what the app exports)."""
        return json.dumps({"ok": self.ok, **asdict(self)}, indent=1, default=str)


def failed_result(err: HfuseError) -> RunResult:
    """The result of a run refused or stopped before it could say more."""
    now = time.time()
    return RunResult(RunFailure.of(err), started_at=now, finished_at=now)


def run_request(request: RunRequest, progress: Progress | None = None) -> RunResult:
    """Run one request in this process; every failure comes back in the result, none is raised."""
    steps = ["starting"]

    def tell(step: str) -> None:
        steps.append(step)
        if progress is not None:
            progress(step)

    started = time.time()
    out_of_memory = None
    try:
        result = _run(request, tell)
    except HfuseError as err:
        result = RunResult(RunFailure.of(err, device_fault=is_device_fault(err)))
    except Exception as err:  # an out-of-memory, a fault of the device, or a bug (reported with its step)
        out_of_memory = out_of_memory_detail(err)
        if out_of_memory is None:
            result = RunResult(_unexpected_failure(err, steps[-1]))
    if out_of_memory is not None:  # made here, where the failed run's tensors are released
        result = RunResult(RunFailure.of(out_of_memory_error(out_of_memory, None, "the run")))
    if result.failure is not None:
        gc.collect()
        if has_cuda() and not result.failure.device_fault:
            torch.cuda.empty_cache()
    return replace(result, started_at=started, finished_at=time.time())


def _run(request: RunRequest, tell: Progress) -> RunResult:
    device = request.device or default_device()
    if device.startswith("cuda"):
        tell("reading the script's shapes")
        shapes = load(request.text, device="meta", segment=request.segment).fusion
        check_free_device_memory(tensor_bytes(shapes, shapes.inputs), "the script's inputs")
    tell("loading the script")
    load_start = time.perf_counter()
    script = load(request.text, device=device, segment=request.segment)
    load_ms = (time.perf_counter() - load_start) * 1e3
    fusion = script.fusion
    tell("computing the torch reference")
    expected = evaluate(fusion, script.inputs, write_aliases=False)  # the run may write into its inputs
    start = time.perf_counter()
    options = {
        "backend": request.backend,
        "alias_outputs": request.alias_outputs,
        "merge": request.merge,
        "profile": True,
    }
    results, profile, compiled = execute(fusion, script.inputs, progress=tell, **options)
    first_call_ms = (time.perf_counter() - start) * 1e3
    stages = (("load script", load_ms), *profile.stages_ms)
    if has_cuda():  # the first call compiled and validated; time a warm call
        results, profile, _ = execute(fusion, script.inputs, progress=tell, **options)
    tell("comparing the outputs with the torch reference")
    returned = [
        (out, want) for out, want in zip(fusion.outputs, expected, strict=True) if out.alias_input is None
    ]
    outputs = tuple(
        _summary(fusion, out.name, got, want) for (out, want), got in zip(returned, results, strict=True)
    )
    comparison, notes = [], ()
    if has_cuda() and request.compare:
        tell("measuring the run beside torch")
        comparison, notes = compare_case(
            script, backend=request.backend, alias_outputs=request.alias_outputs, progress=tell
        )
    return RunResult(
        None, outputs, profile, first_call_ms, stages, compiled.kernels, tuple(comparison), notes
    )


def _summary(fusion: Fusion, name: str, got: torch.Tensor, want: torch.Tensor) -> OutputSummary:
    value = fusion.value(name)
    result = compare(got, want, value.dtype, reduction_size(fusion, name))
    return OutputSummary(
        name, value.shape, value.dtype.name, preview(got), result.ok, result.max_abs_error, result.message
    )


def preview(tensor: torch.Tensor) -> tuple[Any, ...]:
    """The first PREVIEW_ELEMENTS elements in row-major order, without copying the tensor."""
    count = min(tensor.numel(), PREVIEW_ELEMENTS)
    if tensor.dim() == 0:
        return (tensor.item(),)
    positions = torch.unravel_index(torch.arange(count, device=tensor.device), tensor.shape)
    return tuple(tensor[positions].cpu().tolist())


def _unexpected_failure(err: Exception, step: str) -> RunFailure:
    what = f"{type(err).__name__}: {err}"
    if is_device_fault(err):
        fault = KernelError(
            f"the GPU reported a fault while {step} ({what}); the kernel it ran is likely wrong: report it "
            "with the fusion definition; backend='eager' runs the fusion with torch"
        )
        return RunFailure.of(fault, device_fault=True)
    return RunFailure.of(
        HfuseError(f"internal error while {step} ({what}); report it with the fusion definition")
    )


def is_device_fault(err: BaseException) -> bool:
    """Whether `err` or an error it came from is a CUDA fault (the context is lost after one)."""
    accelerator_error = getattr(torch, "AcceleratorError", ())
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, accelerator_error) or any(word in str(seen) for word in _DEVICE_FAULT_WORDS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
