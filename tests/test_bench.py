"""`hfuse bench` without a GPU: the suites name examples that exist, and in-place outputs are checked
from the inputs they were written into, every check starting from the same input values."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from hfuse.examples import get_example, list_examples
from hfuse.service.measure import every_output, restore, saved_in_place_inputs
from hfuse.tools.bench.suite import COMPILE_CASES, SUITE_SUBSETS


@pytest.mark.parametrize("suite", list(SUITE_SUBSETS))
def test_every_suite_times_examples_that_exist(suite):
    for subset in SUITE_SUBSETS[suite]["all"]:
        assert list_examples(subset), subset
    for case in COMPILE_CASES[suite]:
        subset, name = case.split("/")
        assert get_example(name, subset).name == name


IN_PLACE = [
    ("adam-step", get_example("adam_step", "extended").text, [0, 2, 3]),  # every output written in place
    (
        "batchnorm-running-stats",  # two written in place, three returned
        (Path(__file__).parent / "unseen" / "batchnorm_running_stats_alias.py").read_text(),
        [3, 4],
    ),
]


@pytest.mark.parametrize(("text", "written"), [c[1:] for c in IN_PLACE], ids=[c[0] for c in IN_PLACE])
@pytest.mark.usefixtures("fresh_cache")
def test_in_place_outputs_are_read_back_from_their_inputs_and_the_inputs_restored(text, written):
    from hfuse import load
    from hfuse.reference import evaluate
    from hfuse.tolerance import assert_close, reduction_size

    script = load(text, device="cpu")
    before = [x.clone() for x in script.inputs]
    saved = saved_in_place_inputs(script.fusion, script.inputs)
    assert sorted(saved) == written
    evaluate(script.fusion, script.inputs)  # writes into the inputs, as a call does
    assert not all(torch.equal(x, y) for x, y in zip(script.inputs, before, strict=True))
    restore(script.inputs, saved)
    expected = [e.clone() for e in evaluate(script.fusion, [x.clone() for x in script.inputs])]
    assert all(torch.equal(x, y) for x, y in zip(script.inputs, before, strict=True))
    returned = script.fd.execute(script.inputs)
    actual = every_output(script.fusion, script.inputs, returned)
    assert len(actual) == len(expected) == len(script.fusion.outputs)
    for got, want, out in zip(actual, expected, script.fusion.outputs, strict=True):
        assert_close(got, want, reduction_size=reduction_size(script.fusion, out.name))
    assert len(returned) == len(expected) - len(written)


@pytest.mark.parametrize(("name", "subset"), [("adam_step", "extended"), ("qkv_split", "small")])
@pytest.mark.usefixtures("fresh_cache")
def test_the_eager_baseline_runs_the_examples_plain_function_under_hfuses_output_contract(name, subset):
    """In-place outputs are left out of what it returns (written into the inputs), the others laid out
    in hfuse's strides, and the check against the reference passes."""
    from hfuse import load
    from hfuse.baselines import baseline
    from hfuse.reference import evaluate
    from hfuse.service.measure import Candidate, baseline_function, check
    from hfuse.tolerance import reduction_size

    script = load(get_example(name, subset).text, device="cpu")
    saved = saved_in_place_inputs(script.fusion, script.inputs)
    calls = []

    def plain(*xs):
        calls.append(len(xs))
        return baseline(name, subset)(*xs)

    hfuse_outputs = script.fd.execute(script.inputs, alias_outputs=False)
    restore(script.inputs, saved)
    expected = evaluate(script.fusion, [x.clone() for x in script.inputs])
    function = baseline_function(script.fusion, hfuse_outputs, plain)
    eager = Candidate("eager", lambda: function(*script.inputs))
    dtypes = [script.fusion.value(out.name).dtype for out in script.fusion.outputs]
    sizes = [reduction_size(script.fusion, out.name) for out in script.fusion.outputs]
    check(eager, script, expected, dtypes, sizes)
    assert calls == [len(script.inputs)]
    returned = eager.fn()
    assert [t.stride() for t in returned] == [t.stride() for t in hfuse_outputs]


def test_the_first_call_table_says_each_cases_target_and_verdict():
    from hfuse.tools.bench.suite import FirstCall, to_markdown

    firsts = [
        FirstCall("large/softmax", 612.0, 400.0, None, None, {"load script": 12.0, "compare": 3.0}),
        FirstCall("extended-decode/adam_step", 731.0, 500.0, 9.5, 8.0, {"load script": 11.0}),
    ]
    text = to_markdown("## header", [], firsts, [])
    assert "| large/softmax | 612 (400) | <= 1500: met | not timed |" in text
    assert "| extended-decode/adam_step | 731 (500) | <= 500: missed | 9.5 (8.0) |" in text
    assert "| large/softmax | 12.0 | 3.0 |" in text
    assert "torch.compile (Inductor, dynamic=False) of the example's plain torch function" in text


def test_the_summary_gives_the_geometric_means_of_kernel_and_device_time():
    """torch.compile's kernel time holds its host work where short kernels do not hide it; device time
    leaves it out, so the summary gives both."""
    from hfuse.tools.bench.suite import Row, summary

    def rows(case, hfuse_kernel, compile_kernel, hfuse_device, compile_device):
        made = []
        for candidate, kernel, device in (
            ("hfuse", hfuse_kernel, hfuse_device),
            ("torch.compile", compile_kernel, compile_device),
            ("eager", 50.0, 40.0),
            ("clone", 10.0, 8.0),
        ):
            vs_compile = compile_kernel / kernel
            made.append(
                Row(case, "large", candidate, 1, kernel, kernel, device, 1000, 1.0, 80.0, 50.0, vs_compile)
            )
        return made

    lines = summary([*rows("a", 10.0, 40.0, 8.0, 8.0), *rows("b", 20.0, 20.0, 16.0, 32.0)])
    # kernel time: 4x and 1x, 2x; device time: 1x and 2x, 1.414x
    assert (
        lines[-1] == "\nGeometric mean of torch.compile time / hfuse time, large: 2.000 (device time: 1.414)"
    )
    assert "| large | a | 1 / 1 | 10.0 | 40.0 | 4.00 | 80 | 8.0 / 8.0 / 8.0 |" in "\n".join(lines)
