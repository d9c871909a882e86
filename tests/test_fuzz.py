"""The fixed-seed part of the fuzzing campaign, and the guards that decide what counts as a failure."""

import os
import signal
import subprocess
import warnings

import pytest

from hfuse.errors import HfuseError
from hfuse.tools.fuzz import FAILURE, OK, check_script, fuzz_fusions, fuzz_scripts
from hfuse.tools.fuzz import campaign as fuzz
from hfuse.tools.fuzz.recipes import Recipe, Ref, Step
from hfuse.tools.fuzz.strategies import seed_texts

# Derandomized: the same inputs every run, sized to finish in well under a minute on one core.
SCRIPT_EXAMPLES = 1500
FUSION_EXAMPLES = 300


@pytest.fixture
def warmed_up():
    """torch's one-time lazy work done, so that a check does not see it as the script touching files."""
    fuzz.warm_up()


@pytest.fixture
def sandbox(warmed_up):
    with fuzz.campaign_sandbox() as appeared:
        yield
    assert appeared == []


def _report(tally) -> str:
    shown = "\n\n".join(f"[{o.stage}] {o.detail}\n{text[:1500]}" for text, o in tally.failures[:3])
    return f"{tally.summary()}\n{shown}"


def test_mutated_scripts_end_in_results_or_located_errors(sandbox):
    tally = fuzz_scripts(SCRIPT_EXAMPLES)
    assert tally.tried == SCRIPT_EXAMPLES
    assert tally.counts[FAILURE] == 0, _report(tally)
    # The mutations must reach every stage: some inputs still run, some are refused.
    assert tally.counts[OK] > 0 and tally.counts["ParseError"] > 0, tally.summary()


def test_random_fusions_round_trip_and_evaluate(sandbox):
    tally = fuzz_fusions(FUSION_EXAMPLES)
    assert tally.tried == FUSION_EXAMPLES
    assert tally.counts == {OK: FUSION_EXAMPLES}, _report(tally)


SEEDS = seed_texts()


@pytest.mark.parametrize("text", SEEDS, ids=[f"seed-{i}" for i in range(len(SEEDS))])
def test_every_seed_script_runs(warmed_up, text):
    assert check_script(text) == fuzz.Outcome(OK, "segment")


def _raise(error: BaseException):
    def run():
        raise error

    return run


def _sleep_forever():
    while True:
        pass


def _write_a_file():
    with open("written-by-an-input", "w") as handle:
        handle.write("x")


def _start_a_process():
    subprocess.run(["true"], check=False)


# (id, stage function, expected label, text in the detail)
GUARDED = [
    ("hfuse-error-from-a-later-stage", _raise(HfuseError("no place")), "HfuseError", "no place"),
    ("type-error", _raise(TypeError("bad operand")), FAILURE, "TypeError"),
    ("recursion-error", _raise(RecursionError("deep")), FAILURE, "RecursionError"),
    ("memory-error", _raise(MemoryError()), FAILURE, "MemoryError"),
    ("warning-as-error", lambda: warnings.warn("odd", stacklevel=1), FAILURE, "UserWarning"),
    ("hang", _sleep_forever, FAILURE, "still running after 0.2 s"),
    ("file-written", _write_a_file, FAILURE, "touched open('written-by-an-input', 'w')"),
    ("process-started", _start_a_process, FAILURE, "touched subprocess.Popen"),
]


@pytest.mark.parametrize(
    ("run", "label", "detail"), [case[1:] for case in GUARDED], ids=[case[0] for case in GUARDED]
)
def test_the_guards_turn_bad_endings_into_failures(run, label, detail, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outcome = fuzz._guarded_run([("reference", run)], seconds=0.2)
    assert (outcome.label, outcome.stage) == (label, "reference")
    assert detail in outcome.detail


# (id, script, expected label) for check_script
LOCATED_REFUSALS = [
    ("parse-error", "import os\n", "ParseError"),
    ("limit", "x = " + "(" * 200 + "1" + ")" * 200 + "\n", "LimitError"),
]


def test_a_load_error_without_a_line_is_a_failure(monkeypatch):
    def load_without_place(text, device):
        raise HfuseError("something is wrong somewhere")

    monkeypatch.setattr(fuzz, "load", load_without_place)
    outcome = check_script("x = 1\n")
    assert (outcome.label, outcome.stage) == (FAILURE, "load")
    assert "HfuseError without a line" in outcome.detail


@pytest.mark.parametrize(
    ("script", "label"), [c[1:] for c in LOCATED_REFUSALS], ids=[c[0] for c in LOCATED_REFUSALS]
)
def test_located_refusals_are_outcomes_not_failures(script, label):
    outcome = check_script(script)
    assert (outcome.label, outcome.stage) == (label, "load")
    assert outcome.detail.startswith("line 1, column")


def test_a_valid_recipe_that_is_refused_is_a_failure():
    """Random fusions are valid by construction: an HfuseError there is the engine's fault."""
    recipe = Recipe(
        steps=[
            Step("define_tensor", kwargs=(("shape", [2, 3]), ("contiguity", True))),
            Step("ops.sum", (Ref(0),), (("dims", [5]),)),
        ],
        pool=[],
        outputs=[1],
    )
    outcome = fuzz.check_recipe(recipe)
    assert (outcome.label, outcome.stage) == (FAILURE, "build")
    assert outcome.detail.startswith("DefinitionError")


def test_the_sandbox_lists_files_left_behind():
    with fuzz.campaign_sandbox() as appeared:
        with open("left-behind", "w") as handle:
            handle.write("x")
        assert os.environ["HFUSE_MAX_INPUT_BYTES"] == str(fuzz.CAMPAIGN_LIMITS["HFUSE_MAX_INPUT_BYTES"])
    assert appeared == ["work/left-behind"]


def test_main_prints_the_summary_and_saves_failures(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(fuzz, "check_script", lambda text, seconds: fuzz.Outcome(FAILURE, "load", "made up"))
    code = fuzz.main(["--examples", "3", "--fusions", "2", "--seed", "1", "--save", str(tmp_path / "saved")])
    printed = capsys.readouterr().out
    assert code == 1
    assert "mutated scripts: 3 inputs; FAILURES 3" in printed
    assert "random fusions: 2 inputs; ok 2, FAILURES 0" in printed
    saved = sorted(p.name for p in (tmp_path / "saved").iterdir())
    assert saved == ["mutated-scripts-0000.py", "mutated-scripts-0001.py", "mutated-scripts-0002.py"]
    assert (tmp_path / "saved" / saved[0]).read_text().startswith("# load: made up\n")


def test_the_guard_puts_back_an_earlier_alarm():
    def earlier_handler(signum, frame):
        raise AssertionError("the earlier alarm went off")

    previous = signal.signal(signal.SIGALRM, earlier_handler)
    signal.setitimer(signal.ITIMER_REAL, 100.0)
    try:
        assert fuzz._guarded_run([("reference", lambda: None)], seconds=0.2).label == OK
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 90.0 < left <= 100.0
        assert signal.getsignal(signal.SIGALRM) is earlier_handler
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


FOUND_HEAD = (
    "import torch\nfrom nvfuser import FusionDefinition, DataType\n\nwith FusionDefinition() as fd:\n"
    "    T0 = fd.from_pytorch(inputs[0])\n    fd.add_output(fd.ops.exp(T0))\n"
)

# Inputs the campaign found ending in another exception type (or an unlocated error), and where
# each is refused now: (id, script, label, start of the message)
FOUND = [
    ("randint-bounds-of-bool", FOUND_HEAD + "inputs = [torch.randint(10, (3,), dtype=torch.bool)]\n",
     "ParseError", "line 7, column 11: torch.randint: to - 1 is out of bounds for bool"),
    ("ragged-tensor-literal", FOUND_HEAD + "inputs = [torch.tensor([[1, 2], [3]])]\n",
     "ParseError", "line 7, column 11: torch.tensor: expected sequence of length 2"),
    ("make-tensor-low-above-high",
     FOUND_HEAD + "inputs = [torch.testing.make_tensor(3, dtype=torch.float32, low=5, high=1)]\n",
     "ParseError", "line 7, column 11: torch.testing.make_tensor: `low` must be less than `high`"),
    ("fewer-inputs-than-definitions",
     FOUND_HEAD.replace("inputs[0]", "inputs[0])\n    T1 = fd.define_scalar(None")
     + "inputs = [torch.randn(2)]\n",
     "DefinitionError", "line 8, column 1: the definition has 2 inputs"),
    ("no-outputs",
     FOUND_HEAD.replace("    fd.add_output(fd.ops.exp(T0))\n", "") + "inputs = [torch.randn(2)]\n",
     "DefinitionError", "line 4, column 1: the definition has no outputs"),
    ("rank-limit-in-define-tensor",
     FOUND_HEAD.replace("fd.from_pytorch(inputs[0])", f"fd.define_tensor(shape={[1] * 9})"),
     "LimitError", "line 5, column 10: fd.define_tensor: rank 9 exceeds the highest rank 8"),
    ("complex-cast-to-real",
     FOUND_HEAD.replace("fd.ops.exp(T0)", "fd.ops.cast(T0 * complex(1, 2), DataType.Float)")
     + "inputs = [torch.randn(2)]\n", "ok", ""),
    ("variance-of-an-empty-dim",
     FOUND_HEAD.replace("fd.ops.exp(T0)", "fd.ops.var(T0, dims=[0], correction=0)")
     + "inputs = [torch.randn(0, 2)]\n", "ok", ""),
    ("huge-view-of-a-small-input",
     FOUND_HEAD + "inputs = [torch.randn(3).as_strided((2**40,), (0,))]\n",
     "LimitError", "line 6, column 19: exp: the fusion's results take 4.0 TiB (4398046511104 bytes)"),
]  # fmt: skip


@pytest.mark.parametrize(("script", "label", "message"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_what_the_campaign_found_ends_well_now(warmed_up, script, label, message):
    outcome = check_script(script)
    assert outcome.label == label, outcome
    assert outcome.detail.startswith(message)
