"""A plan's kernels compiled side by side before its first launches, on a GPU.

Triton compiles a kernel at its first launch, in the launching process, one after another: a fusion of
three kernels (or a split reduction's two launches) waits for the sum of their compiles. Before a plan's
first launches, `compile_side_by_side` walks its kernel launches once without running any: Triton's
compile hook (`knobs.runtime.jit_cache_hook`) stops each launch where it would compile, and forks a child
that goes on with that very compile (the same source, specialization and options, so the same cache
key), writes it to Triton's disk cache and exits from the post-compile hook; a second child builds the
kernel's launcher, which Triton also compiles at a first launch. Once the children are done, the real
launches find every kernel and launcher in that cache and only load them.

Nothing here can change what runs: the walk launches nothing (a kernel Triton already holds in memory is
left out of it, since its launch would run), and a child that fails or outlasts the deadline leaves its
kernel to compile at its launch as before, where its error is reported.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hfuse import settings

CHILD_DEADLINE_S = 120.0  # a child still compiling by then is stopped; its kernel compiles at launch
POLL_S = 0.002


@dataclass(frozen=True, slots=True)
class DryLaunch:
    """A kernel module's run() on stand-in arguments, and how many `@triton.jit` kernels it launches."""

    run: Callable[[], object]
    kernels: int


def compile_side_by_side(launches: Sequence[DryLaunch]) -> int:
    """Runs each dry launch under the forking compile hook and waits for the children; returns how many
    compiles went to children. Does nothing, and returns 0, where no kernel could compile."""
    if not any(launch.kernels for launch in launches):
        return 0
    if not settings.PARALLEL_COMPILE.as_bool() or not hasattr(os, "fork"):
        return 0
    from triton import knobs

    forker = _Forker(os.cpu_count() or 1)
    with _HOOK_LOCK:
        previous = knobs.runtime.jit_cache_hook
        knobs.runtime.jit_cache_hook = forker.hook
        try:
            for launch in launches:
                forker.walk(launch.run)
        finally:
            knobs.runtime.jit_cache_hook = previous
    forker.wait_all(time.monotonic() + CHILD_DEADLINE_S)
    return len(forker.keys)


def jit_functions(module: ModuleType) -> list[Any]:
    """The `@triton.jit` kernels a generated module launches (its helpers, named `_...`, are compiled into
    them); empty in Triton's interpreter."""
    from triton.runtime.jit import JITFunction

    return [
        value
        for name, value in vars(module).items()
        if isinstance(value, JITFunction) and not name.startswith("_")
    ]


def never_compiled(module: ModuleType) -> bool:
    """Whether no kernel of the module was compiled in this process: only then does a dry launch of it
    stop at the compile hook rather than run. False when Triton keeps its caches where this cannot see."""
    kernels = jit_functions(module)
    if not kernels:
        return False
    for kernel in kernels:
        caches = getattr(kernel, "device_caches", None)
        if caches is None or any(entry[0] for entry in caches.values()):
            return False
    return True


_HOOK_LOCK = threading.Lock()  # Triton's hooks are process-wide: one walk at a time


class _Forker:
    def __init__(self, most: int) -> None:
        self.most = max(1, most)
        self.thread = threading.get_ident()
        self.parent = os.getpid()
        self.children: list[int] = []
        self.keys: set[tuple[int, str]] = set()  # (kernel, specialization) of every compile forked

    def hook(self, *, key: Any, fn: Any, compile: dict[str, Any], **_: Any) -> bool | None:
        """Triton's jit_cache_hook: True skips the compile (and the launch) in the walking thread, after
        forking a child that compiles and one that builds the launcher; None lets any other thread, and
        the compiling child, compile as usual."""
        if threading.get_ident() != self.thread or os.getpid() != self.parent:
            return None
        compile_key = (id(fn.jit_function), str(key))  # Triton's key names the specialization, not the kernel
        if compile_key in self.keys:
            return True
        self.keys.add(compile_key)
        if self._fork() == 0:
            try:
                _build_launcher(fn.jit_function, compile)
            finally:
                os._exit(0)
        if self._fork() == 0:
            from triton import knobs

            knobs.runtime.jit_cache_hook = None
            knobs.runtime.jit_post_compile_hook = _exit_compiled
            return None
        return True

    def _fork(self) -> int:
        while len(self.children) >= self.most and not self._reap():
            time.sleep(POLL_S)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: the child only compiles
            pid = os.fork()
        if pid:
            self.children.append(pid)
        return pid

    def walk(self, launch: Callable[[], object]) -> None:
        try:
            launch()
        except Exception:
            pass  # the real launch meets the same problem and reports it
        finally:
            if os.getpid() != self.parent:  # a child whose compile failed: it must not go on
                os._exit(1)

    def wait_all(self, deadline: float) -> None:
        while self.children and time.monotonic() < deadline:
            if not self._reap():
                time.sleep(POLL_S)
        for pid in self.children:
            _stop(pid)
        self.children.clear()

    def _reap(self) -> bool:
        """Collects the children that finished (each by its pid: other children of the process are not
        this one's to collect); whether any had."""
        finished = [pid for pid in self.children if os.waitpid(pid, os.WNOHANG)[0]]
        self.children = [pid for pid in self.children if pid not in finished]
        return bool(finished)


def _exit_compiled(**_: Any) -> None:
    """The compiling child's post-compile hook: the kernel is in Triton's disk cache, its work is done."""
    os._exit(0)


def _build_launcher(kernel: Any, compile: dict[str, Any]) -> None:
    """Builds the launcher of the kernel about to compile, as its first launch would: Triton versions that
    make a launcher per signature compile it (a C module) into the same disk cache. It needs the kernel's
    signature and constants alone; the compiled kernel's metadata is read only after the module is built,
    so a stand-in for it ends the child's work there."""
    from triton.runtime import driver

    source = kernel.ASTSource(kernel, compile["signature"], compile["constants"], compile["configs"][0])
    driver.active.launcher_cls(source, _LauncherStandIn())


class _LauncherStandIn:
    tensordesc_meta = None
    num_ctas = 1


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
