"""Workers are bounded whatever they are asked: a run worker's data limit is what the settings allow and an
allocation past it comes back as a LimitError; compiles for the diagrams run in a pool, stop at their time
limit and leave other sessions a worker meanwhile; a worker stops by itself when the process that started
it is killed, or when a request outlives its time limit and nobody stops it."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection

import pytest

import hfuse
from hfuse import settings
from hfuse.errors import HfuseError, UnsupportedError
from hfuse.service import compile as compile_module
from hfuse.service.compile import STRATEGIES, CompileRequest, compile_request
from hfuse.service.request import RunRequest
from hfuse.service.worker import GRACE_S, WORKER_STOPPED_EXIT, CompilePool, RunService

GOOD = """
from nvfuser import FusionDefinition, DataType
import torch
inputs = [torch.ones(4, 8, device="cuda")]
with FusionDefinition() as fd:
    x = fd.from_pytorch(inputs[0])
    fd.add_output(fd.ops.mul(x, 3.0))
"""
# One short script whose compile takes minutes: codegen grows with the square of cat's inputs.
HUGE_CAT = """
from nvfuser import FusionDefinition, DataType
with FusionDefinition() as fd:
    t = fd.define_tensor(shape=[1], contiguity=True, dtype=DataType.Float)
    fd.add_output(fd.ops.cat([t] * 10001, 0))
"""
MiB = 1 << 20
ANSWER_S = 2.0  # a compile for another session is answered within this while a huge one runs
STOPPED_S = 60.0  # generous: the machine may be loaded


def data_limit(pid: int) -> int:
    """The soft RLIMIT_DATA of worker `pid`, in bytes, once it has set it (it does before it is ready)."""
    deadline = time.monotonic() + STOPPED_S
    while True:
        with open(f"/proc/{pid}/limits", encoding="ascii") as file:
            found = re.search(r"Max data size\s+(\d+)", file.read())
        if found is not None or time.monotonic() > deadline:
            return int(found.group(1)) if found else -1
        time.sleep(0.1)


def gone(pid: int) -> bool:
    """Whether `pid` has ended (exited, or a zombie nobody reaped)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def wait_gone(pid: int, within_s: float) -> float:
    """Seconds until `pid` ends; fails after `within_s`."""
    start = time.monotonic()
    while not gone(pid):
        assert time.monotonic() - start < within_s, f"process {pid} still runs after {within_s} s"
        time.sleep(0.1)
    return time.monotonic() - start


# ---- memory -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    """A run service whose worker may take 64 MiB of inputs, 64 MiB of outputs and 1 GiB for itself."""
    with pytest.MonkeyPatch.context() as patch:  # the worker reads these when it starts
        patch.setenv(settings.TEST_FAULTS.env, "1")
        patch.setenv(settings.CACHE_DIR.env, str(tmp_path_factory.mktemp("kernels")))
        patch.setenv(settings.MAX_INPUT_BYTES.env, str(64 * MiB))
        patch.setenv(settings.MAX_OUTPUT_BYTES.env, str(64 * MiB))
        patch.setenv(settings.WORKER_OVERHEAD_BYTES.env, str(1024 * MiB))
        runs = RunService()
        assert runs.run(RunRequest(GOOD)).ok
        yield runs
        runs.close()


def test_a_run_worker_may_hold_its_inputs_outputs_and_overhead_and_no_more(small_runs):
    assert data_limit(small_runs.worker_pid) == (64 + 64 + 1024) * MiB


def test_an_allocation_past_the_worker_limit_is_a_limit_error_and_the_worker_goes_on(small_runs):
    pid = small_runs.worker_pid
    result = small_runs.run(RunRequest(GOOD, test_fault="host_oom"))  # asks for twice the limit
    assert result.failure is not None and result.failure.kind == "LimitError", result.failure
    assert re.search(
        r"the run ran out of device memory \(.*DefaultCPUAllocator: can't allocate memory.*\); this process "
        r"may take 1\.1 GiB \(1207959552 bytes\) of host memory \(in the app's run worker: "
        r"HFUSE_MAX_INPUT_BYTES \+ HFUSE_MAX_OUTPUT_BYTES \+ HFUSE_WORKER_OVERHEAD_BYTES\)",
        result.failure.message,
    ), result.failure.message
    assert small_runs.worker_pid == pid
    assert small_runs.run(RunRequest(GOOD)).ok


# ---- compiles for the diagrams ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pool():
    """Two compile workers that accept the huge cat (so that its compile runs, and is stopped)."""
    with pytest.MonkeyPatch.context() as patch:  # read here and by the workers when they start
        patch.setenv(settings.MAX_OP_INPUTS.env, "20000")
        patch.setenv(settings.COMPILE_MAX_BYTES.env, str(3 << 30))
        compiles = CompilePool(2)
        yield compiles
        compiles.close()


def _small_fusion(factor: float = 3.0):
    return hfuse.load(GOOD.replace("3.0", str(factor)), device="meta").fusion


def test_a_compile_request_gives_each_strategy_what_compile_gives(pool):
    fusion = _small_fusion()
    result = pool.compile(CompileRequest(fusion, alias_outputs=False))
    assert result.failure is None and not result.errors
    for strategy in STRATEGIES:
        here = hfuse.compile(fusion, strategy=strategy, alias_outputs=False)
        there = result.of(strategy)
        assert there.segmentation == here.segmentation
        assert [k.source for k in there.kernels] == [k.source for k in here.kernels]


def _failing_for(error: BaseException, strategy: str):
    real = compile_module.compile_fusion

    def compile_fusion(fusion, **options):
        if options["strategy"] == strategy:
            raise error
        return real(fusion, **options)

    return compile_fusion


# (id, error raised while compiling naive, what comes back for naive, whether hfuse compiles)
COMPILE_FAILURES = [
    (
        "an-error-of-one-strategy",
        UnsupportedError("no naive plan"),
        "UnsupportedError",
        r"no naive plan",
        True,
    ),
    (
        "out-of-memory",
        MemoryError(),
        "LimitError",
        r"the compile \(naive\) ran out of memory \(MemoryError\); a compile worker may take 4\.0 GiB "
        r"\(4294967296 bytes\) \(HFUSE_COMPILE_MAX_BYTES\)",
        False,
    ),
]


@pytest.mark.parametrize(
    "error, kind, match, hfuse_compiles",
    [c[1:] for c in COMPILE_FAILURES],
    ids=[c[0] for c in COMPILE_FAILURES],
)
def test_a_compile_failure_comes_back_as_its_error(error, kind, match, hfuse_compiles, monkeypatch):
    monkeypatch.delenv(settings.COMPILE_MAX_BYTES.env, raising=False)
    monkeypatch.setattr(compile_module, "compile_fusion", _failing_for(error, "naive"))
    result = compile_request(CompileRequest(_small_fusion()))
    with pytest.raises(HfuseError, match=match) as caught:
        result.of("naive")
    assert type(caught.value).__name__ == kind
    assert ("hfuse" in result.compiled) is hfuse_compiles


def test_compile_workers_hold_the_data_the_setting_allows_and_yield_the_cpu(pool):
    assert [data_limit(pid) for pid in pool.worker_pids] == [3 << 30] * 2
    assert [os.getpriority(os.PRIO_PROCESS, pid) for pid in pool.worker_pids] == [os.nice(0) + 10] * 2


def test_a_compile_past_its_time_limit_is_stopped_and_another_session_is_answered_meanwhile(
    pool, monkeypatch
):
    monkeypatch.setenv(settings.COMPILE_TIMEOUT_S.env, "8")
    pool.compile(CompileRequest(_small_fusion()))  # both workers are up
    huge = CompileRequest(hfuse.load(HUGE_CAT, device="meta").fusion)
    outcome = {}
    first = threading.Thread(target=lambda: outcome.setdefault("huge", pool.compile(huge)))
    started = time.monotonic()
    first.start()
    time.sleep(1.0)  # the huge compile has been sent to a worker
    answers = []
    for factor in (5.0, 7.0, 9.0):  # not cached anywhere: each is compiled anew
        asked = time.monotonic()
        result = pool.compile(CompileRequest(_small_fusion(factor)))
        answers.append(time.monotonic() - asked)
        assert result.failure is None and result.of("hfuse").kernel_count == 1
    assert first.is_alive(), "the huge compile ended before the other compiles were answered"
    assert max(answers) < ANSWER_S, answers
    first.join()
    stopped = outcome["huge"].failure
    assert stopped is not None and stopped.kind == "LimitError"
    assert re.match(
        r"the compile was stopped after 8 s \(HFUSE_COMPILE_TIMEOUT_S\) while "
        r"(generating kernel 1 of 1|segmenting) \(naive\); the worker process was discarded and a fresh one "
        r"started\. Set HFUSE_COMPILE_TIMEOUT_S to allow longer compiles, or try a smaller definition",
        stopped.message,
    ), stopped.message
    assert time.monotonic() - started < STOPPED_S
    assert pool.compile(CompileRequest(_small_fusion())).failure is None  # in the fresh worker too


# ---- deadlines that outlive the service ---------------------------------------------------------------

# A server: a run service whose worker hangs in a run with a time limit of an hour; prints the worker's pid.
SERVER = f"""
import threading, time
from hfuse.service.request import RunRequest
from hfuse.service.worker import RunService
service = RunService()
assert service.run(RunRequest({GOOD!r})).ok
threading.Thread(target=service.run, args=(RunRequest({GOOD!r}, test_fault="hang"),), daemon=True).start()
time.sleep(1.0)
print(service.worker_pid, flush=True)
time.sleep(3600)
"""


def test_a_worker_orphaned_by_a_killed_server_stops(tmp_path):
    env = {
        **os.environ,
        settings.TEST_FAULTS.env: "1",
        settings.RUN_TIMEOUT_S.env: "3600",
        settings.CACHE_DIR.env: str(tmp_path / "kernels"),
    }
    with subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True, env=env
    ) as server:
        try:
            worker = int(server.stdout.readline())
            assert not gone(worker)
        finally:
            server.send_signal(signal.SIGKILL)
            server.wait()
    wait_gone(worker, STOPPED_S)


def test_a_worker_stops_by_itself_when_a_request_outlives_its_time_limit(tmp_path):
    ours, theirs = socket.socketpair()
    env = {**os.environ, settings.TEST_FAULTS.env: "1", settings.CACHE_DIR.env: str(tmp_path / "kernels")}
    with theirs:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"from hfuse.service.worker import serve; serve({theirs.fileno()}, 'run')",
            ],
            pass_fds=(theirs.fileno(),),
            env=env,
        )
    with Connection(ours.detach()) as conn:
        assert conn.recv() == ("ready", worker.pid)
        conn.send((RunRequest(GOOD, test_fault="hang"), 1.0))  # and nobody stops it
        took = wait_gone(worker.pid, STOPPED_S)
    assert worker.wait() == WORKER_STOPPED_EXIT
    assert took >= 1.0 + GRACE_S - 0.5
