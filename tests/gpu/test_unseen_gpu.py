"""On a CUDA device: every collected real fusion definition (tests/unseen/) at its real sizes, with the
inputs its script makes (random inputs of its shapes where it makes none), through hfuse with views, hfuse
with contiguous outputs and naive, against the torch reference.

hfuse validates each first run itself (HFUSE_ALWAYS_VALIDATE): a ValidationError or KernelError fails the
run, and the outputs are compared with the reference as well. Each definition runs in a child process of
its own (unseen_runner.py), so a kernel that crashes or leaves the device unusable fails only its own
tests. The loads that fail today are the same strict xfails as in tests/test_unseen_definitions.py; the runs
that fail are expected failures by name (RUN_FAILURES: one that passes fails), and the runs whose results
are undefined on CUDA (CUDA_UNDEFINED_RESULTS) may differ from torch's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from unseen_corpus import CUDA_UNDEFINED_RESULTS, RUN_FAILURES, load_params

from hfuse import settings
from hfuse.errors import HfuseError

pytestmark = pytest.mark.gpu

RUNNER = Path(__file__).resolve().parent / "unseen_runner.py"
REPO = RUNNER.parents[2]
RUN_IDS = ("hfuse", "hfuse-contiguous", "naive")  # the runs unseen_runner.RUNS makes
CHILD_TIMEOUT_S = 600


def _child_verdict(path: Path, cache_dir: Path) -> dict:
    """unseen_runner's verdict on `path`, or {"crash": ...} when the child dies or prints none."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env[settings.ALWAYS_VALIDATE.env] = "1"
    env[settings.CACHE_DIR.env] = str(cache_dir)
    try:
        done = subprocess.run(
            [sys.executable, str(RUNNER), str(path)],
            capture_output=True, text=True, env=env, cwd=REPO, timeout=CHILD_TIMEOUT_S,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"crash": f"no verdict within {CHILD_TIMEOUT_S} s"}
    marked = [line for line in done.stdout.splitlines() if line.startswith("UNSEEN-VERDICT ")]
    if not marked:
        return {"crash": f"exit status {done.returncode}; stderr ends:\n{done.stderr[-4000:]}"}
    return json.loads(marked[-1].removeprefix("UNSEEN-VERDICT "))


@pytest.fixture(scope="module")
def verdict_of(tmp_path_factory):
    """The child's verdict on a definition, computed once for its three runs."""
    cache_dir = tmp_path_factory.mktemp("kernels")
    verdicts: dict[Path, dict] = {}

    def verdict(path: Path) -> dict:
        if path not in verdicts:
            verdicts[path] = _child_verdict(path, cache_dir)
        return verdicts[path]

    return verdict


@pytest.mark.parametrize("run", RUN_IDS)
@pytest.mark.parametrize("path", load_params())
def test_unseen_definition_matches_reference_on_gpu(path, run, verdict_of):
    verdict = verdict_of(path)
    if "load_error" in verdict:
        raise HfuseError(verdict["load_error"])
    assert "crash" not in verdict, f"{path.name}: the run died: {verdict['crash']}"
    outcome = verdict["runs"][run]
    if path.stem in RUN_FAILURES:
        assert not outcome["ok"], f"{path.name} ({run}) runs now: remove it from the expected failures"
        pytest.xfail(RUN_FAILURES[path.stem])
    if path.stem in CUDA_UNDEFINED_RESULTS and not outcome["ok"]:
        pytest.xfail(CUDA_UNDEFINED_RESULTS[path.stem])
    assert outcome["ok"], f"{path.name} ({run}): {outcome['message']}"
