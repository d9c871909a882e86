"""Tests pasted alone out of nvFuser's suites with the parts that make them tests: the parts that expect an
error (passed over), pytest's marks and parametrized parameters (the first case)."""

import re

import pytest
import torch

from hfuse import ParseError, load

# the parts expecting an error hold definitions nvFuser refuses, and runs of one with wrong inputs
EXPECTING_ERRORS = """\
    def test_slice_and_its_errors(self):
        inputs = [torch.randn(10, 10, device="cuda")]

        def bad_start(fd: FusionDefinition, acts) -> None:
            t0 = fd.from_pytorch(acts[0])
            fd.add_output(fd.ops.slice(t0, start_indices=[-1, -2], end_indices=[5, 5]))

        def legal(fd: FusionDefinition, acts) -> None:
            t0 = fd.from_pytorch(acts[0])
            fd.add_output(fd.ops.slice(t0, start_indices=[2, 2], end_indices=[4, 4]))

        self.assertRaisesRegex(
            RuntimeError, "start_indices must be", self.exec_nvfuser, partial(bad_start, acts=inputs), inputs
        )
        with self.assertRaisesRegex(RuntimeError, "start_indices must be"):
            self.exec_nvfuser(partial(bad_start, acts=inputs), inputs)
        out, fd = self.exec_nvfuser(partial(legal, acts=inputs), inputs, new_fusion_expected=debug_serde)
        with pytest.raises(Exception, match="Expected input 0"):
            fd.execute([2.0])
        FusionCache.reset()
"""


def test_the_parts_of_a_test_that_expect_an_error_are_passed_over():
    script = load(EXPECTING_ERRORS, device="cpu")
    assert script.format == "nvFuser test method"
    assert script.note == "the parts of the test that expect an error (lines 12, 15 and 18) are not read"
    (x,) = script.inputs
    assert tuple(x.shape) == (10, 10)  # not the [2.0] of the run expected to fail
    torch.testing.assert_close(script.fd.execute([x])[0], x[2:4, 2:4])


def test_a_test_whose_only_fusion_expects_an_error_says_so_at_its_line():
    only_failing = EXPECTING_ERRORS[: EXPECTING_ERRORS.index("        out, fd = ")]
    with pytest.raises(ParseError, match="defines its fusions only in parts that expect an error") as caught:
        load(only_failing, device="meta")
    assert caught.value.loc.line == 12


# a parametrized test function of the nvfuser_direct suite, as copied with its marks
PARAMETRIZED = """\
@pytest.mark.skipif(is_pre_hopper(), reason="Only supported on Hopper and newer devices.")
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("size, dim", [(6, 1), (4, 0)])
@pytest.mark.parametrize("scale", [pytest.param(2.0, id="double"), 3.0])
def test_scaled_sum(nvfuser_direct_test, dtype, size, dim, scale):
    inputs = [torch.randn(4, size, dtype=dtype, device="cuda")]

    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.ops.mul(fd.ops.cast(t0, DataType.Float), scale)
        fd.add_output(fd.ops.sum(t1, dims=[dim]))

    nvf_out, _ = nvfuser_direct_test.exec_nvfuser(fusion_func, inputs)
"""


def test_a_parametrized_test_runs_with_the_first_value_of_each_parameter():
    script = load(PARAMETRIZED, device="cpu")
    assert script.note == (
        "test_scaled_sum runs with the first value of each @pytest.mark.parametrize list: "
        "dtype=torch.bfloat16, size=6, dim=1, scale=2.0"
    )
    (x,) = script.inputs
    assert x.dtype == torch.bfloat16 and tuple(x.shape) == (4, 6)
    torch.testing.assert_close(script.fd.execute([x])[0], (x.float() * 2.0).sum(1))


def test_a_parametrize_value_that_does_not_read_is_placed_on_its_decorator():
    text = PARAMETRIZED.replace("[torch.bfloat16, torch.float32]", "[torch.bfloat17]")
    with pytest.raises(ParseError, match="bfloat17") as caught:
        load(text, device="meta")
    assert caught.value.loc.line == 2


@pytest.mark.parametrize(
    ("decorated", "line", "message"),
    [
        ("@functools.lru_cache\n" + PARAMETRIZED, 1, "decorators are not part of a fusion definition"),
        (PARAMETRIZED.replace('"size, dim", ', "sizes, "), 1, "given by @pytest.mark.parametrize"),
    ],
    ids=["a-decorator-that-is-no-test-mark", "parameter-names-that-are-not-written-out"],
)
def test_a_test_whose_marks_do_not_read_is_refused_at_the_decorator(decorated, line, message):
    with pytest.raises(ParseError, match=re.escape(message)) as caught:
        load(decorated, device="meta")
    assert caught.value.loc.line == line


# nvFuser runs a subclass's definition at the first execute: here it reads `fd`, bound after MyFusion()
SUBCLASS_READING_FD = """\
    def test_fusion_profiler_user_schedule(self):
        inputs = [
            torch.randn((2, 5), dtype=torch.float, device="cuda:0"),
            torch.randn((2, 5), dtype=torch.float, device="cuda:0"),
        ]

        def fusion_func(fd: FusionDefinition) -> None:
            T0 = fd.from_pytorch(inputs[0])
            T1 = fd.from_pytorch(inputs[1])
            fd.add_output(fd.ops.add(T0, T1))

        class MyFusion(FusionDefinition):
            def definition(self):
                fusion_func(fd)

        fd = MyFusion()
        fd.execute(inputs, profile=True)
"""


@pytest.mark.parametrize("pasted_as", ["method", "script"])
def test_a_subclass_definition_runs_at_the_first_run_as_in_nvfuser(pasted_as):
    body = "\n".join(line[8:] for line in SUBCLASS_READING_FD.splitlines()[1:]) + "\n"
    script_text = "import torch\nfrom nvfuser import FusionDefinition\n" + body
    text = SUBCLASS_READING_FD if pasted_as == "method" else script_text
    script = load(text, device="cpu")
    (out,) = script.fd.execute(script.inputs)
    torch.testing.assert_close(out, script.inputs[0] + script.inputs[1])
