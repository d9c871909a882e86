"""The run service: requests run in a worker process, one at a time, and no fault of a run breaks the next.

One service (one worker process, which imports torch and Triton) serves the whole module; the faults
that kill its worker check that the next request gets a fresh one.
"""

from __future__ import annotations

import json
import pickle
import re
import threading
import time

import pytest
import torch

from hfuse import settings
from hfuse.errors import DefinitionError, HfuseError, KernelError, LimitError, Loc, ParseError
from hfuse.loader import load
from hfuse.reference import evaluate
from hfuse.service.request import PREVIEW_ELEMENTS, RunFailure, RunRequest
from hfuse.service.worker import RunService


def _script(rows: int, factor: float, cols: int = 8) -> str:
    return f"""
from nvfuser import FusionDefinition, DataType
import torch
inputs = [torch.ones({rows}, {cols}, device="cuda")]
with FusionDefinition() as fd:
    x = fd.from_pytorch(inputs[0])
    y = fd.ops.mul(x, {factor})
    fd.add_output(y)
"""


GOOD = _script(4, 3.0)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:  # the worker reads these when it starts
        patch.setenv(settings.TEST_FAULTS.env, "1")
        patch.setenv(settings.CACHE_DIR.env, str(tmp_path_factory.mktemp("kernels")))
        runs = RunService()
        _assert_good(runs.run(RunRequest(GOOD)))  # a worker is running, whichever test comes first
        yield runs
        runs.close()


def _assert_good(result, rows: int = 4, factor: float = 3.0) -> None:
    assert result.failure is None, result.failure.message
    assert result.ok
    (output,) = result.outputs
    assert (output.shape, output.dtype) == ((rows, 8), "Float")
    assert output.preview == (factor,) * PREVIEW_ELEMENTS
    assert output.max_abs_error == 0.0
    assert result.profile is not None and result.profile.validated
    assert [kernel.name for kernel in result.kernels] == ["hfuse_pointwise_g0"]
    assert "@triton.jit" in result.kernels[0].source


def test_a_request_runs_validates_and_profiles_in_the_worker(service):
    result = service.run(RunRequest(GOOD))
    _assert_good(result)
    assert service.worker_pid is not None
    assert result.started_at <= result.finished_at


def test_a_result_carries_a_preview_not_the_outputs(service):
    result = service.run(RunRequest(_script(512, 2.0, cols=512)))
    assert result.ok
    assert len(result.outputs[0].preview) == PREVIEW_ELEMENTS
    assert len(pickle.dumps(result)) < 64_000  # the output alone would be 1 MiB


def test_a_result_exports_as_one_json_object(service):
    result = service.run(RunRequest(GOOD))
    exported = json.loads(result.to_json())
    assert exported["ok"] is True and exported["failure"] is None
    assert exported["outputs"][0]["shape"] == [4, 8] and exported["outputs"][0]["ok"] is True
    assert exported["kernels"][0]["name"] == "hfuse_pointwise_g0"
    assert exported["profile"]["segments"] == 1 and exported["first_call_stages"]
    failed = json.loads(service.run(RunRequest("x = (")).to_json())
    assert failed["ok"] is False and failed["failure"]["kind"] == "ParseError"


BAD_SCRIPTS = [
    ("x = (", ParseError, r"line 1, column 5: the script is not valid Python"),
    (
        GOOD.replace("fd.ops.mul(x, 3.0)", "fd.ops.mul(x, x, x)"),
        DefinitionError,
        r"line 7, column 9: fd\.ops\.mul",
    ),
    (GOOD.replace("ones(4, 8", "ones(4, 8, 1, 1, 1, 1, 1, 1, 1"), LimitError, "HFUSE_MAX_RANK"),
]
BAD_SCRIPT_IDS = ["syntax-error", "bad-op-call", "rank-limit"]
# The torch reference fails on an index out of range: a DefinitionError that names its expr.
BAD_INDEX = """
from nvfuser import FusionDefinition
import torch
inputs = [torch.randn(3), torch.tensor([0, 7, 1])]
with FusionDefinition() as fd:
    x = fd.from_pytorch(inputs[0])
    i = fd.from_pytorch(inputs[1])
    fd.add_output(fd.ops.gather(x, i, dim=0))
"""


@pytest.mark.parametrize("text, kind, match", BAD_SCRIPTS, ids=BAD_SCRIPT_IDS)
def test_a_bad_script_comes_back_as_its_error(service, text, kind, match):
    pid = service.worker_pid
    result = service.run(RunRequest(text))
    assert result.failure is not None and not result.ok
    error = result.failure.exception()
    assert isinstance(error, kind)
    assert str(error) == result.failure.message
    assert re.search(match, result.failure.message)
    assert service.worker_pid == pid  # a user error leaves the worker as it was


@pytest.mark.parametrize(
    "text",
    [case[0] for case in BAD_SCRIPTS] + [BAD_INDEX],
    ids=[*BAD_SCRIPT_IDS, "reference-fails-on-an-expr"],
)
def test_an_error_raised_in_the_worker_comes_back_with_its_loc_and_expr(service, text):
    with pytest.raises(HfuseError) as caught:  # the worker's first steps, in this process
        script = load(text, device="cpu")
        evaluate(script.fusion, script.inputs)
    raised = caught.value
    assert raised.loc is not None or raised.expr is not None
    rebuilt = service.run(RunRequest(text)).failure.exception()
    assert type(rebuilt) is type(raised)
    assert (rebuilt.reason, rebuilt.loc, rebuilt.expr) == (raised.reason, raised.loc, raised.expr)
    assert str(rebuilt) == str(raised)


# A test fault strikes at the run's first step; on a GPU the inputs' size is checked before loading.
FIRST_STEP = "reading the script's shapes" if torch.cuda.is_available() else "loading the script"
FAULTS = [
    ("hang", LimitError, rf"stopped after 1\.5 s \(HFUSE_RUN_TIMEOUT_S\) while {FIRST_STEP}", True),
    ("crash", KernelError, rf"died \(signal 11, SIGSEGV\) while {FIRST_STEP}", True),
    ("exit", KernelError, rf"died \(exit code 3\) while {FIRST_STEP}", True),
    (
        "cuda_error",
        KernelError,
        rf"GPU reported a fault while {FIRST_STEP} .*The worker process .*discarded",
        True,
    ),
    ("oom", LimitError, r"ran out of device memory \(CUDA out of memory", False),
]


@pytest.mark.parametrize("fault, kind, match, replaced", FAULTS, ids=[f[0] for f in FAULTS])
def test_a_fault_is_reported_and_the_next_request_runs(service, monkeypatch, fault, kind, match, replaced):
    service.run(RunRequest(GOOD))  # a worker is up
    pid = service.worker_pid
    monkeypatch.setenv(settings.RUN_TIMEOUT_S.env, "1.5")
    result = service.run(RunRequest(GOOD, test_fault=fault))
    monkeypatch.delenv(settings.RUN_TIMEOUT_S.env)
    assert result.failure is not None
    assert result.failure.kind == kind.__name__
    assert re.search(match, result.failure.message, flags=re.S), result.failure.message
    assert (service.worker_pid != pid) is replaced
    _assert_good(service.run(RunRequest(GOOD)))


def test_concurrent_requests_run_one_at_a_time_and_each_gets_its_own_result(service):
    service.run(RunRequest(GOOD))  # a worker is up
    scripts = [(rows, float(rows + 1)) for rows in (1, 2, 3, 5)]
    results: dict[int, object] = {}
    waits: dict[int, list[int]] = {rows: [] for rows, _ in scripts}
    start = threading.Barrier(len(scripts))

    def ask(rows: int, factor: float) -> None:
        start.wait()
        results[rows] = service.run(RunRequest(_script(rows, factor)), on_wait=waits[rows].append)

    threads = [threading.Thread(target=ask, args=script) for script in scripts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for rows, factor in scripts:
        _assert_good(results[rows], rows, factor)
    spans = sorted((results[rows].started_at, results[rows].finished_at) for rows, _ in scripts)
    assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False))
    assert sorted(len(told) > 0 for told in waits.values()) == [False, True, True, True]
    assert max(max(told) for told in waits.values() if told) == len(scripts) - 1
    assert service.queue_length == 0


def test_a_request_gives_up_after_the_queue_limit(service, monkeypatch):
    service.run(RunRequest(GOOD))  # a worker is up
    monkeypatch.setenv(settings.RUN_TIMEOUT_S.env, "1.5")
    monkeypatch.setenv(settings.RUN_QUEUE_TIMEOUT_S.env, "0.2")
    hung = threading.Thread(target=service.run, args=(RunRequest(GOOD, test_fault="hang"),))
    hung.start()
    while service.queue_length == 0:
        time.sleep(0.01)
    told: list[int] = []
    result = service.run(RunRequest(GOOD), on_wait=told.append)
    hung.join()
    assert told == [1]
    assert isinstance(result.failure.exception(), LimitError)
    assert "waited 0.2 s for 1 run(s) of other sessions" in result.failure.message
    assert "HFUSE_RUN_QUEUE_TIMEOUT_S" in result.failure.message


class Stopped(Exception):
    """What the app's poll raises when its visitor pressed Stop (Streamlit's own exception in the app)."""


def _stop_after(seconds: float):
    deadline = time.monotonic() + seconds

    def poll() -> None:
        if time.monotonic() > deadline:
            raise Stopped

    return poll


def test_a_cancelled_run_stops_its_worker_and_the_next_request_gets_its_own_result(service):
    service.run(RunRequest(GOOD))  # a worker is up
    pid = service.worker_pid
    started = time.monotonic()
    with pytest.raises(Stopped):
        service.run(RunRequest(GOOD, test_fault="hang"), poll=_stop_after(0.5))
    assert time.monotonic() - started < 5  # not the hang's whole time limit
    assert service.queue_length == 0 and service.worker_pid != pid  # nothing of it goes on computing
    _assert_good(service.run(RunRequest(_script(3, 7.0))), 3, 7.0)


def test_a_cancelled_request_leaves_the_queue_while_it_waits(service, monkeypatch):
    service.run(RunRequest(GOOD))  # a worker is up
    monkeypatch.setenv(settings.RUN_TIMEOUT_S.env, "3")
    hung = threading.Thread(target=service.run, args=(RunRequest(GOOD, test_fault="hang"),))
    hung.start()
    while service.queue_length == 0:
        time.sleep(0.01)
    with pytest.raises(Stopped):
        service.run(RunRequest(GOOD), poll=_stop_after(0.3))
    assert service.queue_length == 1  # the hung one alone
    hung.join()
    monkeypatch.delenv(settings.RUN_TIMEOUT_S.env)
    _assert_good(service.run(RunRequest(GOOD)))


ERRORS = [
    ("ParseError", ParseError("bad call", loc=Loc(3, 7, "y = fd.ops.nope(x)"))),
    (
        "DefinitionError",
        DefinitionError("shapes do not fit", expr="T2 = add(T0, T1)", loc=Loc(4, 5, "z = x + y")),
    ),
    ("LimitError", LimitError("too big (set HFUSE_MAX_RANK)")),
    ("KernelError", KernelError("kernel k (segment 0) failed")),
    (
        "located-LimitError",
        LimitError("too many ops (set HFUSE_MAX_OPS)", loc=Loc(9, 5, "    fd.add_output(T2)")),
    ),
    ("KernelError-of-an-expr", KernelError("the emitter failed: ValueError: no", expr="T1 = fd.ops.neg(T0)")),
]


@pytest.mark.parametrize("error", [e[1] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_a_failure_rebuilds_its_error_with_its_fields(error):
    rebuilt = pickle.loads(pickle.dumps(RunFailure.of(error))).exception()
    assert type(rebuilt) is type(error)
    assert str(rebuilt) == str(error)
    assert vars(rebuilt) == vars(error)


def test_an_unknown_test_fault_is_refused_when_the_request_is_made():
    with pytest.raises(ValueError, match="unknown test fault 'melt'"):
        RunRequest(GOOD, test_fault="melt")
