"""The Run page's estimate of a run in Triton's interpreter: programs launched times a measured pace."""

import pytest

from hfuse import compile, load
from hfuse.examples import get_example
from ui import run_estimate


@pytest.fixture
def fresh_rate():
    run_estimate._rate.clear()
    yield
    run_estimate._rate.clear()


WIDE = """
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[1024, 1024], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(t0))
"""


def compiled_of(text: str, strategy: str = "hfuse"):
    return compile(load(text, device="meta").fusion, strategy=strategy, alias_outputs=False)


def test_the_estimate_grows_with_the_programs_the_kernels_launch(fresh_rate):
    small, many = compiled_of(get_example("add").text), compiled_of(get_example("qkv_split").text, "naive")
    assert run_estimate.programs(small) < run_estimate.programs(many)
    assert run_estimate.expected_s(small) < run_estimate.expected_s(many)
    assert run_estimate.expected_s(small) == pytest.approx(
        run_estimate.START_S + run_estimate.programs(small) * run_estimate.FIRST_S_PER_PROGRAM
    )


def test_a_finished_run_sets_the_pace_of_the_next_estimate(fresh_rate):
    compiled = compiled_of(WIDE)
    count = run_estimate.programs(compiled)
    assert count >= run_estimate.MEASURED_FROM_PROGRAMS
    slow = run_estimate.START_S + count * 0.025  # 25 ms a program, five times the first guess
    before = run_estimate.expected_s(compiled)
    run_estimate.record(compiled, slow)
    after = run_estimate.expected_s(compiled)
    assert before < after < slow
    for _ in range(20):
        run_estimate.record(compiled, slow)
    assert run_estimate.expected_s(compiled) == pytest.approx(slow, rel=1e-3)
