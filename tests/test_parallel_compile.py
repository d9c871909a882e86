"""Compiles side by side: each dry launch stops at Triton's compile hook in the parent and compiles in a
forked child, the children run at once, and a child that fails or hangs costs time and nothing else.

The launches here do what Triton's JIT does at a kernel's first launch (the cache hook, then the compile,
then the post-compile hook), with a sleep for the compile, so the forking is tested without a GPU; the
GPU test runs the real compiles (tests/gpu/test_parallel_compile_gpu.py)."""

from __future__ import annotations

import importlib
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from hfuse import settings
from hfuse.runtime import parallel_compile
from hfuse.runtime.parallel_compile import DryLaunch, compile_side_by_side

# Triton only after hfuse.runtime, which puts it in interpreter mode where there is no GPU
knobs = importlib.import_module("triton.knobs")

COMPILE_S = 0.4
KERNEL = SimpleNamespace(jit_function=None)  # what the hooks are told of the kernel (no launcher to build)


def _launch(folder: Path, key: str, seconds: float = COMPILE_S, *, fail: bool = False) -> DryLaunch:
    def run() -> None:
        if knobs.runtime.jit_cache_hook(key=key, fn=KERNEL, compile={}):
            return  # the parent: no compile, no launch
        time.sleep(seconds)
        if fail:
            raise RuntimeError("the compile failed")
        (folder / key).write_text(str(os.getpid()))
        knobs.runtime.jit_post_compile_hook(key=key, fn=KERNEL, compile={})
        (folder / f"{key}.launched").write_text("")  # never reached: the child exits in the hook above

    return DryLaunch(run, kernels=1)


def _children() -> set[int]:
    """This process's child processes, collected or not (Linux), whoever started them."""
    found = set()
    for listing in Path("/proc/self/task").glob("*/children"):
        found.update(int(pid) for pid in listing.read_text().split())
    return found


@pytest.fixture(autouse=True)
def _side_by_side(monkeypatch):
    monkeypatch.delenv(settings.PARALLEL_COMPILE.env, raising=False)


def test_each_compile_runs_in_its_own_child_and_they_run_at_once(tmp_path):
    keys = [f"k{n}" for n in range(min(3, os.cpu_count() or 1))]  # at most a child per core
    before = _children()
    start = time.monotonic()
    forked = compile_side_by_side([_launch(tmp_path, key) for key in keys])
    elapsed = time.monotonic() - start
    assert forked == len(keys)
    assert elapsed < 1.8 * COMPILE_S, f"{forked} compiles of {COMPILE_S} s took {elapsed:.2f} s: one by one"
    pids = {(tmp_path / key).read_text() for key in keys}
    assert len(pids) == len(keys) and str(os.getpid()) not in pids
    assert not list(tmp_path.glob("*.launched"))
    assert _children() <= before  # every child was collected


def test_a_failed_or_hung_child_changes_nothing_but_the_time(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel_compile, "CHILD_DEADLINE_S", 1.0)
    launches = [
        _launch(tmp_path, "good"),
        _launch(tmp_path, "failed", fail=True),
        _launch(tmp_path, "hung", seconds=60.0),
    ]
    before = _children()
    start = time.monotonic()
    assert compile_side_by_side(launches) == 3
    assert time.monotonic() - start < 5.0  # the hung child was stopped at the deadline
    assert sorted(path.name for path in tmp_path.iterdir()) == ["good"]
    assert _children() <= before  # the hung child was stopped and collected


def test_the_hook_is_put_back_and_one_key_compiles_once(tmp_path):
    def previous(**_):
        return None

    knobs.runtime.jit_cache_hook = previous
    try:
        assert compile_side_by_side([_launch(tmp_path, "same"), _launch(tmp_path, "same")]) == 1
        assert knobs.runtime.jit_cache_hook is previous
    finally:
        knobs.runtime.jit_cache_hook = None


def test_another_threads_compile_is_left_alone(tmp_path):
    seen = []

    def run() -> None:
        def other_thread():
            seen.append(knobs.runtime.jit_cache_hook(key="other", fn=KERNEL, compile={}))

        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()

    assert compile_side_by_side([DryLaunch(run, kernels=2)]) == 0
    assert seen == [None]  # that thread compiles as usual


def test_nothing_is_forked_without_a_kernel_or_when_turned_off(tmp_path, monkeypatch):
    assert compile_side_by_side([DryLaunch(lambda: None, kernels=0)]) == 0
    monkeypatch.setenv(settings.PARALLEL_COMPILE.env, "0")
    assert compile_side_by_side([_launch(tmp_path, "a"), _launch(tmp_path, "b")]) == 0
    assert not list(tmp_path.iterdir())
