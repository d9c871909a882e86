"""The fuzzing campaign: every input ends in results or a located HfuseError, never anything else.

An input is a script text. `check_script` loads it on the CPU, evaluates the fusion with the torch
reference, runs the passes and the segmenter. The outcome is "ok", the class name of the HfuseError
it raised, or a FAILURE: another exception type, a load error whose message names no line, a run
past the time limit, or a file written or a process started while it ran. `check_recipe` builds a
random valid fusion with the frontend, prints it, loads the print and compares: any error or any
difference is a FAILURE.

`python -m hfuse.tools.fuzz --examples N --seed S --save DIR` runs the long campaign and prints what it
tried and found; failing inputs are saved under DIR. It needs hypothesis (the `test` extra).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from hypothesis import HealthCheck, Phase, given
from hypothesis import seed as hypothesis_seed
from hypothesis import settings as hypothesis_settings

from hfuse import settings
from hfuse.errors import HfuseError
from hfuse.loader import load
from hfuse.passes import run_passes
from hfuse.printer import print_fusion
from hfuse.reference import evaluate
from hfuse.segment import segment
from hfuse.tools.fuzz.recipes import Recipe, build_definition, fusion_recipes
from hfuse.tools.fuzz.strategies import mutated_scripts

OK = "ok"
FAILURE = "FAILURE"
SECONDS_PER_INPUT = 5.0
# Mutated shapes may ask for any size; the campaign lowers the size limits so that a run allocates little.
CAMPAIGN_LIMITS = {settings.MAX_INPUT_BYTES.env: 1 << 24, settings.MAX_OUTPUT_BYTES.env: 1 << 28}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_TOUCHING_EVENTS = frozenset({
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "pty.spawn", "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate",
    "os.chmod", "os.chown", "os.symlink", "os.link", "os.utime", "shutil.rmtree", "shutil.copyfile",
    "shutil.move", "socket.connect", "socket.bind", "urllib.Request", "sqlite3.connect",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Outcome:
    label: str  # OK, an HfuseError class name, or FAILURE
    stage: str  # where it ended: load, reference, passes, segment (scripts); build, roundtrip (recipes)
    detail: str = ""


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` under test swallows it."""


# ------------------------------------------------------------------------------------- the guards

_touched: list[str] | None = None  # set while an input runs: what it wrote or started


def _audit(event: str, args: tuple) -> None:
    if _touched is None:
        return
    if event == "open":
        path, mode, flags = args
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writes:
            _touched.append(f"open({path!r}, {mode!r})")
    elif event in _TOUCHING_EVENTS:
        _touched.append(f"{event}{args!r:.200}")


_audit_installed = False


@contextlib.contextmanager
def _guarded(seconds: float) -> Iterator[list[str]]:
    """Records writes and process events while the body runs, and stops it after `seconds`.

    An alarm set before (pytest-timeout's, say) is put back afterwards with the time it had left."""
    global _touched, _audit_installed
    if not _audit_installed:
        sys.addaudithook(_audit)
        _audit_installed = True
    alarm = threading.current_thread() is threading.main_thread()
    touched: list[str] = []
    if alarm:
        previous_handler = signal.signal(signal.SIGALRM, _raise_timeout)
        previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
        started = time.monotonic()
    _touched = touched
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # as under pytest: a warning is a failure
            yield touched
    finally:
        _touched = None
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous_handler)
            if previous_delay:
                left = max(previous_delay - (time.monotonic() - started), 1e-3)
                signal.setitimer(signal.ITIMER_REAL, left, previous_interval)


def _raise_timeout(signum, frame) -> None:
    raise _Timeout


def _failure(stage: str, err: BaseException) -> Outcome:
    frames = traceback.extract_tb(err.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return Outcome(FAILURE, stage, f"{type(err).__name__}{where}: {str(err)[:500]}")


def _guarded_run(stages, seconds: float) -> Outcome:
    """Runs (name, function) stages in order under the guards; the first error ends the run."""
    stage = stages[0][0]
    try:
        with _guarded(seconds) as touched:
            for name, run in stages:
                stage = name
                run()
    except _Timeout:
        return Outcome(FAILURE, stage, f"still running after {seconds} s")
    except HfuseError as err:
        if touched:
            return Outcome(FAILURE, stage, f"touched {', '.join(touched)}")
        if stage == "load" and err.loc is None:
            return Outcome(FAILURE, stage, f"{type(err).__name__} without a line: {str(err)[:500]}")
        return Outcome(type(err).__name__, stage, str(err)[:500])
    except Exception as err:  # anything else is what the campaign looks for
        return _failure(stage, err)
    if touched:
        return Outcome(FAILURE, stage, f"touched {', '.join(touched)}")
    return Outcome(OK, stage)


# ---------------------------------------------------------------------------------- the two checks


def check_script(text: str, seconds: float = SECONDS_PER_INPUT) -> Outcome:
    """Load, evaluate, run the passes on and segment one script text."""
    state: dict = {}

    def load_it():
        state["script"] = load(text, device="cpu")

    def reference():
        evaluate(state["script"].fusion, state["script"].inputs)

    def passes():
        state["passes"] = run_passes(state["script"].fusion)

    def segment_it():
        result = state["passes"]
        segment(result.fusion, alias=result.aliases)

    stages = [("load", load_it), ("reference", reference), ("passes", passes), ("segment", segment_it)]
    return _guarded_run(stages, seconds)


def check_recipe(recipe: Recipe, seconds: float = SECONDS_PER_INPUT) -> Outcome:
    """A random valid fusion: built, printed, re-loaded (equal), evaluated (the same), passes, segmented."""
    state: dict = {}

    def build():
        state["fusion"] = build_definition(recipe).fusion()

    def roundtrip():
        state["script"] = load(print_fusion(state["fusion"]), device="cpu")
        if state["script"].fusion != state["fusion"]:
            raise AssertionError(f"the printed fusion loads as a different one:\n{state['fusion']}")

    def reference():
        inputs = state["script"].inputs
        expected = evaluate(state["fusion"], inputs)
        for got, want in zip(evaluate(state["script"].fusion, inputs), expected, strict=True):
            torch.testing.assert_close(got, want, equal_nan=True, rtol=0, atol=0)

    def passes_and_segment():
        result = run_passes(state["fusion"])
        segment(result.fusion, alias=result.aliases)

    stages = [("build", build), ("roundtrip", roundtrip), ("reference", reference),
              ("segment", passes_and_segment)]  # fmt: skip
    outcome = _guarded_run(stages, seconds)
    if outcome.label not in (OK, FAILURE):  # a valid fusion must not be refused
        return Outcome(FAILURE, outcome.stage, f"{outcome.label}: {outcome.detail}")
    return outcome


# ----------------------------------------------------------------------------------- the campaign


@dataclass
class Tally:
    """What one part of the campaign tried and how each input ended."""

    name: str
    counts: Counter = field(default_factory=Counter)
    failures: list[tuple[str, Outcome]] = field(default_factory=list)

    def record(self, text: str, outcome: Outcome) -> None:
        self.counts[outcome.label] += 1
        if outcome.label == FAILURE:
            self.failures.append((text, outcome))

    @property
    def tried(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str:
        parts = [f"{label} {count}" for label, count in sorted(self.counts.items()) if label != FAILURE]
        parts.append(f"FAILURES {self.counts[FAILURE]}")
        return f"{self.name}: {self.tried} inputs; {', '.join(parts)}"


def hypothesis_run(strategy, examples: int, seed: int | None, body) -> None:
    """`body` on `examples` values of `strategy`, generated only (no shrinking, no database); `seed=None`
    draws the same values every run."""
    options = hypothesis_settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=seed is None,
    )
    test = options(given(strategy)(body))
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    test()


def fuzz_scripts(examples: int, seed: int | None = None, seconds: float = SECONDS_PER_INPUT) -> Tally:
    """Mutated scripts; `seed=None` draws the same inputs every run."""
    tally = Tally("mutated scripts")
    hypothesis_run(
        mutated_scripts(), examples, seed, lambda text: tally.record(text, check_script(text, seconds))
    )
    return tally


def fuzz_fusions(examples: int, seed: int | None = None, seconds: float = SECONDS_PER_INPUT) -> Tally:
    tally = Tally("random fusions")
    hypothesis_run(
        fusion_recipes(),
        examples,
        seed,
        lambda recipe: tally.record(str(recipe), check_recipe(recipe, seconds)),
    )
    return tally


def warm_up() -> None:
    """Makes torch's one-time lazy work happen before the campaign watches: its compiler package,
    imported on the first meta-device call of some tensor methods, makes a cache folder in the temp dir."""
    import torch._dynamo  # noqa: F401


@contextlib.contextmanager
def campaign_sandbox(limits: dict[str, int] | None = None) -> Iterator[list[str]]:
    """An empty working folder and temp folder, and small size limits; lists what appeared in them."""
    appeared: list[str] = []
    overrides = {name: str(value) for name, value in (limits or CAMPAIGN_LIMITS).items()}
    saved = {name: os.environ.get(name) for name in [*overrides, "TMPDIR"]}
    saved_tempdir, saved_cwd = tempfile.tempdir, os.getcwd()
    with tempfile.TemporaryDirectory(prefix="hfuse-fuzz-") as root:
        work, tmp = Path(root, "work"), Path(root, "tmp")
        work.mkdir()
        tmp.mkdir()
        os.environ.update(overrides)
        os.environ["TMPDIR"] = tempfile.tempdir = str(tmp)
        os.chdir(work)
        try:
            yield appeared
        finally:
            os.chdir(saved_cwd)
            tempfile.tempdir = saved_tempdir
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            appeared.extend(str(p.relative_to(root)) for p in Path(root).rglob("*") if p not in (work, tmp))


def _save(folder: Path, tallies: Sequence[Tally]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    for tally in tallies:
        for index, (text, outcome) in enumerate(tally.failures):
            path = folder / f"{tally.name.replace(' ', '-')}-{index:04d}.py"
            header = f"# {outcome.stage}: {outcome.detail}".replace("\n", "\n# ")
            path.write_text(f"{header}\n{text}", encoding="utf-8", errors="backslashreplace")
            saved.append(path)
    return saved


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hfuse.tools.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000, help="mutated scripts to try")
    parser.add_argument(
        "--fusions", type=int, default=None, help="random fusions to try (default: examples/4)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=SECONDS_PER_INPUT, help="time limit of one input")
    parser.add_argument("--save", type=Path, default=None, help="folder for the failing inputs")
    args = parser.parse_args(argv)
    fusions = args.examples // 4 if args.fusions is None else args.fusions
    warm_up()
    with campaign_sandbox() as appeared:
        tallies = [
            fuzz_scripts(args.examples, args.seed, args.seconds),
            fuzz_fusions(fusions, args.seed, args.seconds),
        ]
    print(f"hfuse fuzz, seed {args.seed}, {args.seconds} s per input")
    for tally in tallies:
        print(tally.summary())
    print(f"files left in the working and temp folders: {', '.join(appeared) or 'none'}")
    failures = [f for tally in tallies for f in tally.failures]
    for text, outcome in failures[:20]:
        shown = text[:2000].encode("utf-8", "backslashreplace").decode()  # lone surrogates as escapes
        print(f"\nFAILURE in {outcome.stage}: {outcome.detail}\n{shown}")
    if args.save is not None and failures:
        print(f"\nfailing inputs saved: {len(_save(args.save, tallies))} files under {args.save}")
    return 1 if failures or appeared else 0
