"""Runs requests in separate worker processes, so that no fault of a run, and no compile that grows too
big, can break or hold up the process that asked.

A `RunService` runs one request at a time in its worker, first come first served. One per process
(`shared_service()`) serves the runs of every session of the app: that is also what keeps two sessions'
kernels off the GPU together. A `CompilePool` of HFUSE_COMPILE_WORKERS services (`shared_compile_pool()`)
compiles definitions for the app's diagrams, so that one session's huge definition leaves the others a
worker. Each kind of request is a `Lane`: its time limit, its memory limit, its CPU priority (compile
workers yield the CPU to the server) and how its messages read.

A request that lasts longer than its time limit is stopped by killing the worker; a worker that dies
(a segfault, a CUDA context fault, an exit) is replaced. Either way the caller gets a result that says
what happened, and the next request runs in a fresh worker, with a fresh GPU context. A worker limits
its own data (RLIMIT_DATA) to what its lane's settings allow, so an allocation past them fails in the
worker as an out-of-memory (reported as a LimitError), and it stops by itself when the process that
started it is gone or when a request outlives its time limit by GRACE_S: a server killed mid-request
leaves no worker computing.

The worker is a fresh interpreter (`python -c`), like multiprocessing's 'spawn' start but without
re-running the parent's main module, which in Streamlit is the app itself. It talks over a socket pair
with multiprocessing's Connection. Worker -> service: ("ready", pid) once it has imported hfuse, then for
each request any number of ("progress", step) and one ("result", result). Service -> worker: (request,
time limit in seconds).
"""

from __future__ import annotations

import os
import pickle
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from pathlib import Path

import torch

import hfuse
from hfuse import settings
from hfuse.errors import HfuseError, KernelError, LimitError
from hfuse.pipeline import Progress
from hfuse.runtime.device import has_cuda
from hfuse.service.compile import CompileRequest, CompileResult, compile_request, failed_compile
from hfuse.service.request import RunRequest, RunResult, failed_result, run_request

START_TIMEOUT_S = 120.0  # a worker imports torch, Triton and hfuse before it takes requests
EXIT_WAIT_S = 10.0  # how long a dying worker is given to finish dying
GRACE_S = 5.0  # a worker past its request's time limit by this much stops by itself (its service did not)
WATCH_EVERY_S = 0.5  # how often a worker checks that its parent lives and its request is in time
POLL_S = 0.25  # how often a waiting or running request asks its caller whether it is still wanted
WaitReport = Callable[[int], None]  # told how many requests are ahead of a waiting one, when it changes
# called every POLL_S while a request waits or runs: what it raises cancels the request and propagates
Poll = Callable[[], None]
Request = RunRequest | CompileRequest
Result = RunResult | CompileResult


@dataclass(frozen=True, slots=True)
class Lane:
    """A kind of request a service runs: how messages name it, its settings, what to advise."""

    noun: str  # "run", "compile"
    timeout: settings.Setting
    smaller: str  # what to try instead of a longer time limit
    again: str  # what to do after waiting too long
    bug: str  # who to blame when the worker dies again
    failed: Callable[[HfuseError], Result]
    data_bytes: Callable[[], int]  # the most data (RLIMIT_DATA) a worker of this lane may hold
    niceness: int = 0  # added to the worker's nice value: how far it yields the CPU to the server


def run_data_bytes() -> int:
    """A run's inputs and what it allocates, at their limits, and the worker's own needs."""
    return (
        settings.MAX_INPUT_BYTES.as_bytes()
        + settings.MAX_OUTPUT_BYTES.as_bytes()
        + settings.WORKER_OVERHEAD_BYTES.as_int()
    )


RUN = Lane(
    "run",
    settings.RUN_TIMEOUT_S,
    "try smaller inputs",
    "run it again when the device is less busy",
    "a bug in the generated kernel or in Triton: report it with the fusion definition; backend='eager' runs "
    "the fusion with torch",
    failed_result,
    run_data_bytes,
)
COMPILE = Lane(
    "compile",
    settings.COMPILE_TIMEOUT_S,
    "try a smaller definition",
    "open it again when the server is less busy",
    "a bug in hfuse's compiler: report it with the fusion definition",
    failed_compile,
    settings.COMPILE_MAX_BYTES.as_int,
    niceness=10,  # a huge compile must not slow the server's answers to other sessions
)


class RunService:
    """Runs requests of one lane one at a time in a worker process; thread-safe, shared by the sessions of
    an app."""

    def __init__(self, lane: Lane = RUN) -> None:
        self.lane = lane
        self._process: subprocess.Popen | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._turns = threading.Condition()
        self._line: deque[object] = deque()  # one ticket per run, the running one first

    @property
    def queue_length(self) -> int:
        """Requests waiting or running now."""
        with self._turns:
            return len(self._line)

    @property
    def worker_pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def run(self, request: Request, *, on_wait: WaitReport | None = None, poll: Poll | None = None) -> Result:
        """Run `request` in the worker once the requests ahead of it are done; never raises an HfuseError:
        every failure, including a refusal to wait longer than HFUSE_RUN_QUEUE_TIMEOUT_S, is in the result.
        `poll` is called every POLL_S while the request waits or runs: what it raises (the app's Stop)
        cancels the request, leaving the queue to the next, and propagates; a worker running it is
        replaced, so nothing of it is left computing."""
        queued = time.monotonic()
        refusal = self._wait_for_turn(on_wait, poll)
        if refusal is not None:
            return self.lane.failed(refusal)
        waited_s = time.monotonic() - queued
        try:
            result = self._run_in_worker(request, poll)
        finally:
            self._end_turn()
        return replace(result, waited_s=waited_s)

    def start(self) -> None:
        """Start the worker now if there is none, so that the first request finds it ready."""
        if self._wait_for_turn(None) is None:
            try:
                if self._process is None:
                    self._spawn()
            finally:
                self._end_turn()

    def close(self) -> None:
        """Stop the worker once the requests ahead are done (a later request starts a new one)."""
        if self._wait_for_turn(None) is None:
            try:
                self._stop_worker()
            finally:
                self._end_turn()

    def _wait_for_turn(self, on_wait: WaitReport | None, poll: Poll | None = None) -> HfuseError | None:
        """Queue up and wait until this thread's turn; a LimitError after HFUSE_RUN_QUEUE_TIMEOUT_S. What
        `on_wait` or `poll` raise leaves the queue and propagates."""
        ticket = object()
        limit = settings.RUN_QUEUE_TIMEOUT_S.as_float()
        deadline = time.monotonic() + limit
        told = None
        with self._turns:
            self._line.append(ticket)
            try:
                while self._line[0] is not ticket:
                    ahead = self._line.index(ticket)
                    if on_wait is not None and ahead != told:
                        told = ahead
                        self._outside_the_lock(on_wait, ahead)
                        continue
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        self._line.remove(ticket)
                        self._turns.notify_all()
                        return LimitError(
                            f"the run waited {limit:g} s for {ahead} run(s) of other sessions ahead of it "
                            f"and gave up ({settings.RUN_QUEUE_TIMEOUT_S.env}): run it again when the device "
                            "is less busy"
                        )
                    self._turns.wait(min(remaining, POLL_S) if poll is not None else remaining)
                    if poll is not None:
                        self._outside_the_lock(poll)
            except BaseException:
                self._line.remove(ticket)
                self._turns.notify_all()
                raise
        return None

    def _outside_the_lock(self, call: Callable[..., None], *args: object) -> None:
        """A caller's callback, which may take a while (a page update): the others move meanwhile."""
        self._turns.release()
        try:
            call(*args)
        finally:
            self._turns.acquire()

    def _end_turn(self) -> None:
        with self._turns:
            self._line.popleft()
            self._turns.notify_all()

    def _run_in_worker(self, request: Request, poll: Poll | None = None) -> Result:
        started = self._start_worker()
        if started is not None:
            return self.lane.failed(started)
        assert self._conn is not None and self._process is not None
        limit = self.lane.timeout.as_float()
        try:
            self._conn.send((request, limit))
        except (BrokenPipeError, OSError):
            return self.lane.failed(self._died(f"taking the {self.lane.noun}"))
        try:
            return self._await_result(self._conn, limit, poll)
        except BaseException:  # cancelled: the worker must not go on with it, nor answer the next request
            self._spawn()
            raise

    def _await_result(self, conn: Connection, limit: float, poll: Poll | None = None) -> Result:
        deadline = time.monotonic() + limit
        lane = self.lane
        step = f"waiting for the worker to take the {lane.noun}"
        while True:
            remaining = max(deadline - time.monotonic(), 0)
            if poll is not None and remaining > POLL_S:
                if not wait([conn], timeout=POLL_S):
                    poll()
                    continue
            if wait([conn], timeout=remaining):
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):  # the worker's end closed: it died
                    return lane.failed(self._died(step))
                if kind == "progress":
                    step = payload
                    continue
                return self._delivered(payload)
            if time.monotonic() >= deadline:
                self._spawn()
                return lane.failed(
                    LimitError(
                        f"the {lane.noun} was stopped after {limit:g} s ({lane.timeout.env}) while {step}; "
                        f"{_fresh_worker()}. Set {lane.timeout.env} to allow longer {lane.noun}s, or "
                        f"{lane.smaller}"
                    )
                )

    def _delivered(self, result: Result) -> Result:
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
            f"the worker process died ({how}) while {step}; {_fresh_worker()}. If it dies again this is "
            f"{self.lane.bug}"
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
            start = f"from hfuse.service.worker import serve; serve({theirs.fileno()}, {self.lane.noun!r})"
            process = subprocess.Popen(
                [sys.executable, "-c", start],
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


class CompilePool:
    """HFUSE_COMPILE_WORKERS services of the compile lane; a compile goes to the one with the fewest
    compiles given to it and not yet done, so a session whose compile runs long leaves the others a worker."""

    def __init__(self, size: int) -> None:
        self._services = [RunService(COMPILE) for _ in range(max(size, 1))]
        self._given = [0] * len(self._services)
        self._lock = threading.Lock()
        for service in self._services:
            service.start()

    @property
    def worker_pids(self) -> tuple[int | None, ...]:
        return tuple(service.worker_pid for service in self._services)

    def compile(self, request: CompileRequest) -> CompileResult:
        """Compile in a worker; never raises an HfuseError (see `RunService.run`)."""
        with self._lock:
            index = min(range(len(self._given)), key=self._given.__getitem__)
            self._given[index] += 1
        try:
            return self._services[index].run(request)
        finally:
            with self._lock:
                self._given[index] -= 1

    def close(self) -> None:
        for service in self._services:
            service.close()


_SHARED_POOL: CompilePool | None = None


def shared_compile_pool() -> CompilePool:
    """The process's one CompilePool (its workers start when it is made)."""
    global _SHARED_POOL
    with _SHARED_LOCK:
        if _SHARED_POOL is None:
            _SHARED_POOL = CompilePool(settings.COMPILE_WORKERS.as_int())
        return _SHARED_POOL


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


LANES = {lane.noun: lane for lane in (RUN, COMPILE)}
WORKER_STOPPED_EXIT = 75  # the exit code of a worker that stopped by itself (orphaned, or past its limit)


def serve(fd: int, lane: str = RUN.noun) -> None:
    """The worker's loop on the socket `fd`: one request at a time, until the service goes away."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = LANES[lane].data_bytes()
    resource.setrlimit(
        resource.RLIMIT_DATA, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard)
    )
    os.nice(LANES[lane].niceness)
    watch = _Watch(os.getppid())
    threading.Thread(target=watch.run, name="hfuse-worker-watch", daemon=True).start()
    conn = Connection(fd)
    conn.send(("ready", os.getpid()))
    faults_allowed = settings.TEST_FAULTS.as_bool()
    while True:
        try:
            request, time_limit = conn.recv()
        except (EOFError, OSError):
            return

        def progress(step: str) -> None:
            conn.send(("progress", step))

        if faults_allowed and request.test_fault:
            progress = _with_fault(progress, request.test_fault)
        watch.deadline = time.monotonic() + time_limit + GRACE_S
        if isinstance(request, CompileRequest):
            result = compile_request(request, progress)
        else:
            result = run_request(request, progress)
        watch.deadline = None
        try:
            conn.send(("result", result))
        except (TypeError, AttributeError, pickle.PicklingError) as err:
            failure = HfuseError(f"internal error: the result cannot be sent ({err})")
            conn.send(("result", LANES[lane].failed(failure)))
        if result.failure is not None and result.failure.device_fault:
            os._exit(1)  # the CUDA context is lost; the service starts a fresh worker


class _Watch:
    """Stops the worker when the process that started it is gone (its parent changes) or when a request
    runs past `deadline`: what the service would have done, had it been there to do it."""

    def __init__(self, parent: int) -> None:
        self.parent = parent
        self.deadline: float | None = None  # time.monotonic() past which the running request is given up

    def run(self) -> None:
        while True:
            time.sleep(WATCH_EVERY_S)
            deadline = self.deadline
            if os.getppid() != self.parent or (deadline is not None and time.monotonic() > deadline):
                os._exit(WORKER_STOPPED_EXIT)


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
        elif fault == "host_oom":  # twice what the worker may hold: refused only by its data limit
            limit, _ = resource.getrlimit(resource.RLIMIT_DATA)
            torch.empty(2 * limit, dtype=torch.uint8)
        else:
            raise RuntimeError("CUDA error: an illegal memory access was encountered (test fault)")

    return faulty
