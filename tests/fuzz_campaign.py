"""The GPU fuzz campaign: random fusions at GPU sizes through every strategy, checked against torch.

`python3 tests/fuzz_campaign.py --fusions 5000 --workers 16 --seconds 540 --save DIR` (`make gpu-fuzz`).
Each worker process draws its own fusions (`random_fusions.GPU`: extents at tile boundaries and primes,
extreme constants, permuted, gapped and expanded inputs; worker 0 also draws `HUGE` ones, a tensor of more
than 2**31 elements, one fusion in HUGE_EVERY) and runs each as the property test does: hfuse with views,
hfuse with every output computed, and naive; the runtime validates each first run, a second run on fresh
inputs is compared with the reference. It prints progress, the schedules the kernels used and every
failure with its fusion; failures are saved under DIR. A worker whose fusion made a device fault (the CUDA
context is lost after one) ends there, and a fresh worker draws the rest of its fusions. Exit status: 0
when every fusion asked for ran and passed, 1 on a failure, 2 when the time ran out first.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HUGE_EVERY = 20
RESTART_SEEDS = 100_000  # a fresh worker's seeds start this far on, so it draws other fusions
PROGRESS_SECONDS = 15.0
SCALES = ("gpu", "small")


@dataclass(frozen=True, slots=True)
class Ran:
    """One fusion's outcome: the schedules its kernels used, or the failure and the fusion that made it."""

    worker: int
    schedules: tuple[str, ...] = ()
    failure: str = ""
    script: str = ""
    device_fault: bool = False  # the failure lost the worker's CUDA context


@dataclass(frozen=True, slots=True)
class Lost:
    """A worker ended by a device fault after `done` of its fusions: a fresh one draws the rest."""

    worker: int
    done: int


def schedules(kernel) -> set[str]:
    """What a kernel's schedule was, in a few words: its scheduler and the forms its launches took."""
    from hfuse.codegen import Options

    names = {kernel.scheduler}
    for part in kernel.config.get("parts", []):
        if "persistent" in part:
            names.add(f"{kernel.scheduler}, {'row kept on chip' if part['persistent'] else 'looped row'}")
            if part["persistent"] and part["COLS"] > Options().persistent_max_cols:
                names.add(f"{kernel.scheduler}, row read twice when looped, kept whole")
        if part.get("outer"):
            names.add(f"{kernel.scheduler}, outer (column) reduction")
        if "PARTS" in part:
            names.add(f"{kernel.scheduler}, row split across programs")
    if kernel.launches > 1:
        names.add(f"{kernel.scheduler}, split reduction ({kernel.launches} launches)")
    if "program_id(0).to(tl.int64)" in kernel.source:
        names.add("int64 offsets")
    return names


def run_one(index: int, fusion, device: str, check: Callable) -> Ran:
    """Checks one fusion; any exception is a failure, reported with the fusion printed as a script."""
    from hfuse.printer import print_fusion
    from hfuse.runtime import clear_cache
    from hfuse.service.request import is_device_fault

    try:
        compiled_runs = check(fusion, device)
    except Exception as err:  # a campaign reports every failure and goes on
        detail = "".join(traceback.format_exception_only(err)).strip()
        return Ran(
            index, failure=detail[:4000], script=print_fusion(fusion), device_fault=is_device_fault(err)
        )
    finally:
        clear_cache()
    names = {name for compiled in compiled_runs for kernel in compiled.kernels for name in schedules(kernel)}
    return Ran(index, schedules=tuple(sorted(names)))


def _worker(
    index: int, count: int, seed: int, scale: str, device: str, deadline: float, results, restart: int = 0
) -> None:
    os.environ["HFUSE_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"hfuse-fuzz-{index}-")
    from engine_check import check_engine
    from hypothesis import strategies as st
    from random_fusions import GPU, HUGE, SMALL, fusions

    from hfuse.tools.fuzz.campaign import hypothesis_run

    if scale == "small":
        strategy = fusions(SMALL)
    elif index == 0:
        strategy = st.integers(1, HUGE_EVERY).flatmap(lambda n: fusions(HUGE if n == 1 else GPU))
    else:
        strategy = fusions(GPU)

    done, lost = 0, False

    def body(fusion) -> None:
        nonlocal done, lost
        if lost or time.time() >= deadline:
            return
        ran = run_one(index, fusion, device, check_engine)
        results.put(ran)
        done += 1
        lost = ran.device_fault  # every later fusion of this process would fail: a fresh one goes on

    try:
        hypothesis_run(strategy, count, seed * 1000 + index + RESTART_SEEDS * restart, body)
    except Exception as err:  # the generator itself failed: a failure of the campaign, shown as one
        detail = "".join(traceback.format_exception(err))[-4000:]
        results.put(Ran(index, failure=f"the fusion generator stopped this worker:\n{detail}"))
    results.put(Lost(index, done) if lost else index)  # this worker is done


@dataclass
class Campaign:
    """What the campaign saw so far."""

    asked: int
    ran: int = 0
    schedules: Counter = field(default_factory=Counter)
    failures: list[Ran] = field(default_factory=list)

    def record(self, ran: Ran) -> None:
        self.ran += 1
        self.schedules.update(ran.schedules)
        if ran.failure:
            self.failures.append(ran)
            print(f"FAILURE (worker {ran.worker}): {ran.failure.splitlines()[-1][:300]}", flush=True)

    def progress(self, elapsed: float) -> str:
        return f"{self.ran}/{self.asked} fusions, {len(self.failures)} failures, {elapsed:.0f} s"


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def run_campaign(fusions: int, workers: int, seed: int, seconds: float, scale: str, device: str) -> Campaign:
    context = multiprocessing.get_context("spawn")  # CUDA cannot be forked
    results = context.Queue()
    deadline = time.time() + seconds

    def started(index: int, count: int, restart: int) -> multiprocessing.Process:
        args = (index, count, seed, scale, device, deadline, results, restart)
        process = context.Process(target=_worker, args=args, daemon=True)
        process.start()
        return process

    counts = {i: count for i, count in enumerate(_split(fusions, workers)) if count}
    restarts = dict.fromkeys(counts, 0)
    processes = [started(i, count, 0) for i, count in counts.items()]
    campaign, running, start, shown = Campaign(fusions), len(processes), time.time(), time.time()
    while running and time.time() < deadline + 60:  # a fusion begun before the deadline may finish
        try:
            message = results.get(timeout=1.0)
        except queue.Empty:
            running = sum(p.is_alive() for p in processes)
            message = None
        if isinstance(message, Ran):
            campaign.record(message)
        elif isinstance(message, Lost):
            counts[message.worker] -= message.done
            restarts[message.worker] += 1
            print(f"worker {message.worker}: a device fault lost its CUDA context; a fresh worker goes on")
            if counts[message.worker] and time.time() < deadline:
                processes.append(started(message.worker, counts[message.worker], restarts[message.worker]))
            else:
                running -= 1
        elif isinstance(message, int):
            running -= 1
        if time.time() - shown > PROGRESS_SECONDS:
            print(campaign.progress(time.time() - start), flush=True)
            shown = time.time()
    for process in processes:
        process.kill()
    return campaign


def _save(folder: Path, failures: Sequence[Ran]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, ran in enumerate(failures):
        header = "\n".join(f"# {line}" for line in ran.failure.splitlines())
        inputs = "# inputs: tests/random_fusions.py random_inputs(fusion, seed=0 then 1)"
        path = folder / f"failure-{number:03d}.py"
        path.write_text(f"{header}\n{inputs}\n{ran.script}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fusions", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=540.0, help="stop drawing new fusions after this")
    parser.add_argument("--scale", choices=SCALES, default="gpu")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--save", type=Path, default=None, help="folder for the failing fusions")
    args = parser.parse_args(argv)
    start = time.time()
    campaign = run_campaign(args.fusions, args.workers, args.seed, args.seconds, args.scale, args.device)
    print(f"fuzz campaign, seed {args.seed}, scale {args.scale}, {args.device}, {args.workers} workers")
    print(campaign.progress(time.time() - start))
    print("schedules the kernels used (fusions that used each):")
    for name, count in sorted(campaign.schedules.items()):
        print(f"  {name}: {count}")
    for ran in campaign.failures[:20]:
        print(f"\nFAILURE: {ran.failure}\n{ran.script}")
    if args.save is not None and campaign.failures:
        _save(args.save, campaign.failures)
        print(f"\n{len(campaign.failures)} failing fusions saved under {args.save}")
    if campaign.failures:
        return 1
    return 0 if campaign.ran >= args.fusions else 2


if __name__ == "__main__":
    sys.exit(main())
