"""Runs requests in a separate worker process, so that no fault of a run can break the process that asked.

One `RunService` per process (`shared_service()`) serves every session of the app. It runs one request
at a time, first come first served: that is also what keeps two sessions' kernels off the GPU together.
A run that lasts longer than HFUSE_RUN_TIMEOUT_S is stopped by killing the worker; a worker that dies
(a segfault, a CUDA context fault, an exit) is replaced. Either way the caller gets a result that says
what happened, and the next request runs in a fresh worker, with a fresh GPU context.

The worker is a fresh interpreter (`python -c`), like multiprocessing's 'spawn' start but without
re-running the parent's main module, which in Streamlit is the app itself. It talks over a socket pair
with multiprocessing's Connection. Worker -> service: ("ready", pid) once it has imported hfuse, then for
each request any number of ("progress", step) and one ("result", RunResult). Service -> worker: a
RunRequest.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import Connection, wait
from pathlib import Path

import torch

import hfuse
from hfuse import settings
from hfuse.errors import HfuseError, KernelError, LimitError
from hfuse.runtime.device import has_cuda
from hfuse.service.request import Progress, RunRequest, RunResult, failed_result, run_request

START_TIMEOUT_S = 120.0  # a worker imports torch, Triton and hfuse before it takes requests
EXIT_WAIT_S = 10.0  # how long a dying worker is given to finish dying
WaitReport = Callable[[int], None]  # told how many runs are ahead of a waiting one, when it changes


class RunService:
    """Runs requests one at a time in a worker process; thread-safe, shared by the sessions of an app."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._turns = threading.Condition()
        self._line: deque[object] = deque()  # one ticket per run, the running one first

    @property
    def queue_length(self) -> int:
        """Runs waiting or running now."""
        with self._turns:
            return len(self._line)

    @property
    def worker_pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def run(self, request: RunRequest, *, on_wait: WaitReport | None = None) -> RunResult:
        """Run `request` in the worker once the runs ahead of it are done; never raises an HfuseError:
        every failure, including a refusal to wait longer than HFUSE_RUN_QUEUE_TIMEOUT_S, is in the result."""
        queued = time.monotonic()
        refusal = self._wait_for_turn(on_wait)
        if refusal is not None:
            return failed_result(refusal)
        waited_s = time.monotonic() - queued
        try:
            result = self._run_in_worker(request)
        finally:
            self._end_turn()
        return replace(result, waited_s=waited_s)

    def close(self) -> None:
        """Stop the worker once the runs ahead are done (a later run starts a new one)."""
        if self._wait_for_turn(None) is None:
            try:
                self._stop_worker()
            finally:
                self._end_turn()

    def _wait_for_turn(self, on_wait: WaitReport | None) -> HfuseError | None:
        """Queue up and wait until this thread's turn; a LimitError after HFUSE_RUN_QUEUE_TIMEOUT_S."""
        ticket = object()
        limit = settings.RUN_QUEUE_TIMEOUT_S.as_float()
        deadline = time.monotonic() + limit
        told = None
        with self._turns:
            self._line.append(ticket)
            while self._line[0] is not ticket:
                ahead = self._line.index(ticket)
                if on_wait is not None and ahead != told:
                    told = ahead
                    self._turns.release()  # the report may take a while (a page update): let others move
                    try:
                        on_wait(ahead)
                    finally:
                        self._turns.acquire()
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._line.remove(ticket)
                    self._turns.notify_all()
                    return LimitError(
                        f"the run waited {limit:g} s for {ahead} run(s) of other sessions ahead of it and "
                        f"gave up ({settings.RUN_QUEUE_TIMEOUT_S.env}): run it again when the device is "
                        "less busy"
                    )
                self._turns.wait(remaining)
        return None

    def _end_turn(self) -> None:
        with self._turns:
            self._line.popleft()
            self._turns.notify_all()

    def _run_in_worker(self, request: RunRequest) -> RunResult:
        started = self._start_worker()
        if started is not None:
            return failed_result(started)
        assert self._conn is not None and self._process is not None
        try:
            self._conn.send(request)
        except (BrokenPipeError, OSError):
            return failed_result(self._died("taking the run"))
        return self._await_result(self._conn)

    def _await_result(self, conn: Connection) -> RunResult:
        limit = settings.RUN_TIMEOUT_S.as_float()
        deadline = time.monotonic() + limit
        step = "waiting for the worker to take the run"
        while True:
            if wait([conn], timeout=max(deadline - time.monotonic(), 0)):
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):  # the worker's end closed: it died
                    return failed_result(self._died(step))
                if kind == "progress":
                    step = payload
                    continue
                return self._delivered(payload)
            if time.monotonic() >= deadline:
                self._spawn()
                return failed_result(
                    LimitError(
                        f"the run was stopped after {limit:g} s ({settings.RUN_TIMEOUT_S.env}) while {step}; "
                        f"{_fresh_worker()}. Set "
                        f"{settings.RUN_TIMEOUT_S.env} to allow longer runs, or try smaller inputs"
                    )
                )

    def _delivered(self, result: RunResult) -> RunResult:
        if result.failure is None or not result.failure.device_fault:
            return result
        # The worker exits after a CUDA fault: its context cannot run anything any more.
        self._spawn()
        note = _fresh_worker()
        return replace(result, failure=result.failure.with_note(f"{note[0].upper()}{note[1:]}."))

    def _died(self, step: str) -> KernelError:
        assert self._process is not None
        how = _exit_description(_exit_code(self._process))
        self._spawn()
        return KernelError(
            f"the worker process died ({how}) while {step}; {_fresh_worker()}. If it dies again this is a "
            "bug in the generated kernel or in Triton: report it with the fusion definition; "
            "backend='eager' runs the fusion with torch"
        )

    def _start_worker(self) -> HfuseError | None:
        """A worker that is alive and has imported hfuse, started if there is none."""
        if self._process is None or self._process.poll() is not None:
            self._spawn()
        if self._ready:
            return None
        assert self._conn is not None and self._process is not None
        if not wait([self._conn], timeout=START_TIMEOUT_S):
            how = _exit_description(self._process.poll())
            self._stop_worker()
            return KernelError(
                f"the worker process did not start within {START_TIMEOUT_S:g} s ({how}); check that "
                "`python -c 'import hfuse.service.request'` works in this environment"
            )
        try:
            message = self._conn.recv()
        except (EOFError, OSError):
            message = None
        if not (isinstance(message, tuple) and message[0] == "ready"):
            how = _exit_description(_exit_code(self._process))
            self._stop_worker()
            return KernelError(
                f"the worker process ended while starting ({how}); see the server's log for why"
            )
        self._ready = True
        return None

    def _spawn(self) -> None:
        """Kill the worker if there is one and start the next now: it imports while the caller reads on."""
        self._stop_worker()
        ours, theirs = socket.socketpair()
        with theirs:  # closed here once the worker has it: ours then reads EOF when the worker dies
            process = subprocess.Popen(
                [sys.executable, "-c", f"from hfuse.service.worker import serve; serve({theirs.fileno()})"],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=_worker_environment(),
            )
        self._process, self._conn, self._ready = process, Connection(ours.detach()), False

    def _stop_worker(self) -> None:
        """Kill the worker (an idle one holds nothing worth keeping; a busy one is being given up on)."""
        process, conn = self._process, self._conn
        self._process, self._conn, self._ready = None, None, False
        if process is not None:
            process.kill()
            process.wait()
        if conn is not None:
            conn.close()


_SHARED: RunService | None = None
_SHARED_LOCK = threading.Lock()


def shared_service() -> RunService:
    """The process's one RunService (its worker starts with the first run)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = RunService()
        return _SHARED


def _fresh_worker() -> str:
    if has_cuda():
        return "the worker process and its GPU context were discarded and a fresh worker started"
    return "the worker process was discarded and a fresh one started"


def _worker_environment() -> dict[str, str]:
    """This process's environment, with the folder hfuse is imported from first on the worker's path."""
    env = dict(os.environ)
    root = str(Path(hfuse.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def _exit_code(process: subprocess.Popen) -> int | None:
    """The worker's exit code once it has ended (waiting a little for a dying one); None if it goes on."""
    try:
        return process.wait(EXIT_WAIT_S)
    except subprocess.TimeoutExpired:
        return None


def _exit_description(exitcode: int | None) -> str:
    if exitcode is None:
        return "it did not exit"
    if exitcode < 0:
        try:
            return f"signal {-exitcode}, {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


# ---- in the worker process ----------------------------------------------------------------------


def serve(fd: int) -> None:
    """The worker's loop on the socket `fd`: one request at a time, until the service goes away."""
    conn = Connection(fd)
    conn.send(("ready", os.getpid()))
    faults_allowed = settings.TEST_FAULTS.as_bool()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return

        def progress(step: str) -> None:
            conn.send(("progress", step))

        if faults_allowed and request.test_fault:
            progress = _with_fault(progress, request.test_fault)
        result = run_request(request, progress)
        try:
            conn.send(("result", result))
        except (TypeError, AttributeError, pickle.PicklingError) as err:
            conn.send(
                ("result", failed_result(HfuseError(f"internal error: the result cannot be sent ({err})")))
            )
        if result.failure is not None and result.failure.device_fault:
            os._exit(1)  # the CUDA context is lost; the service starts a fresh worker


def _with_fault(progress: Progress, fault: str) -> Progress:
    """For hfuse's tests (HFUSE_TEST_FAULTS=1): `progress` that fails as asked at the run's first step."""

    def faulty(step: str) -> None:
        progress(f"{step} (test fault: {fault})")
        if fault == "hang":
            time.sleep(3600)
        elif fault == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif fault == "exit":
            os._exit(3)
        elif fault == "oom":
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (test fault)")
        else:
            raise RuntimeError("CUDA error: an illegal memory access was encountered (test fault)")

    return faulty
