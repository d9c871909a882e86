"""A fusion's compile for the app's diagrams, as a picklable request and result, and how it is done.

The app parses a script itself (the loader is bounded), but the compile (passes, segmentation and codegen
of both strategies) grows faster than the fusion, so the app asks a worker process for it
(`hfuse.service.worker`), with a time limit and a memory limit. `compile_request` is what the worker does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hfuse import settings
from hfuse.backends import HFUSE, NAIVE
from hfuse.errors import HfuseError, LimitError
from hfuse.ir import Fusion
from hfuse.pipeline import Compiled, Progress, compile_fusion
from hfuse.runtime.memory import first_line
from hfuse.segment.override import Merge
from hfuse.service.request import TEST_FAULTS, RunFailure
from hfuse.units import format_size

STRATEGIES = (NAIVE, HFUSE)  # what the diagrams compare


@dataclass(frozen=True, slots=True)
class CompileRequest:
    """A fusion to compile with the strategies the diagrams show (all by default), under one output
    contract; with `merge`, two segments of each strategy's plan merged."""

    fusion: Fusion
    alias_outputs: bool = True
    strategies: tuple[str, ...] = STRATEGIES
    merge: Merge | None = None
    test_fault: str = ""  # for hfuse's tests: honoured only by a worker started with HFUSE_TEST_FAULTS=1

    def __post_init__(self) -> None:
        if self.test_fault and self.test_fault not in TEST_FAULTS:
            raise ValueError(f"unknown test fault {self.test_fault!r}: one of {', '.join(TEST_FAULTS)}")


@dataclass(frozen=True, slots=True)
class CompileResult:
    """Each strategy's compile or the error it raised; `failure` when the request failed as a whole
    (stopped after HFUSE_COMPILE_TIMEOUT_S, its worker died, it waited too long)."""

    failure: RunFailure | None = None
    compiled: dict[str, Compiled] = field(default_factory=dict)
    errors: dict[str, RunFailure] = field(default_factory=dict)
    waited_s: float = 0.0  # time spent waiting for the compiles of other sessions

    def of(self, strategy: str) -> Compiled:
        """The strategy's compile; raises its HfuseError (or the request's) where it failed."""
        failure = self.failure or self.errors.get(strategy)
        if failure is not None:
            raise failure.exception()
        return self.compiled[strategy]


def failed_compile(err: HfuseError) -> CompileResult:
    """The result of a compile refused or stopped before it could say more."""
    return CompileResult(RunFailure.of(err))


def compile_request(request: CompileRequest, progress: Progress | None = None) -> CompileResult:
    """Compile with the request's strategies in this process; every HfuseError and out-of-memory comes back
    in the result (anything else is a bug, raised for the worker to report)."""
    compiled, errors = {}, {}
    for strategy in request.strategies:
        try:
            compiled[strategy] = compile_fusion(
                request.fusion,
                strategy=strategy,
                alias_outputs=request.alias_outputs,
                merge=request.merge,
                progress=progress,
            )
        except HfuseError as err:
            errors[strategy] = RunFailure.of(err)
        except MemoryError as err:
            return failed_compile(_out_of_memory(first_line(err), strategy))
    return CompileResult(None, compiled, errors)


def _out_of_memory(detail: str, strategy: str) -> LimitError:
    return LimitError(
        f"the compile ({strategy}) ran out of memory ({detail}); a compile worker may take "
        f"{format_size(settings.COMPILE_MAX_BYTES.as_int())} ({settings.COMPILE_MAX_BYTES.env}): "
        "simplify the definition or raise the setting"
    )
