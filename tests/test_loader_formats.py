"""What nvFuser and Thunder print pastes unchanged: each layout in tests/pasted/ loads, says what it is,
and computes what torch computes.

The samples follow what the printers write: nvFuser's repro_script_for (legacy and direct modules) and
the error message that wraps it, NVFUSER_DUMP=python_definition and python_definition_segments, the
`fd = FusionDefinition()` then `with fd:` layout of issue repros, and Thunder's nvFuser repro file
(nvFuser's repro, formatted, with the Thunder trace of the fusion in a docstring).
"""

from pathlib import Path

import pytest
import torch

from hfuse import DefinitionError, ParseError, UnsupportedError, load

PASTED = Path(__file__).resolve().parent / "pasted"


def _text(name: str) -> str:
    return (PASTED / f"{name}.txt").read_text(encoding="utf-8")


def _rope_like(x, w):
    parts = x.reshape(5, 5, 4, 3, 8).permute(0, 2, 3, 1, 4)
    first, second = parts[:, :, 0].float(), parts[:, :, 1].float()
    return [(first * w[:, :, None, None].float() * 0.353553 + second).bfloat16()]


def _masked_sum(x, i, mask, fill):
    return [torch.where(mask, x.sum([0, 3]) + i.float(), fill).clamp(-1.0, float("inf"))]


def _rms_norm(x, w):
    xf = x.float()
    normed = xf * torch.rsqrt((xf * xf).sum(2, keepdim=True) * (1 / 8.0) + 1e-6)
    return [(normed * w.float()).half()]


# (sample, what it is read as, inputs it holds (shape or value), torch's outputs from those inputs)
SAMPLES = [
    ("nvfuser_error_message", "nvFuser error repro", [(5, 5, 96), (5, 4)], _rope_like),
    ("nvfuser_repro", "nvFuser error repro", [(1, 6, 8, 2), (6, 8), (6, 8), float("inf")], _masked_sum),
    (
        "nvfuser_direct_repro",
        "nvFuser error repro",
        [(4, 16), (16,)],
        lambda x, w: [(x.float() * w.float()).sum(1)],
    ),
    ("thunder_repro", "Thunder repro", [(2, 2), (2, 2)], lambda a, b: [a.exp() + b.tanh()]),
    ("python_definition_dump", "nvFuser python_definition dump", [(2, 3, 8), (8,)], _rms_norm),
    (
        "definition_object_then_with",
        "fusion definition script",
        [],
        lambda: [torch.zeros(16, 40, dtype=torch.int64)],
    ),
]


@pytest.mark.parametrize(("name", "layout", "inputs", "expected"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_a_pasted_layout_loads_says_what_it_is_and_agrees_with_torch(name, layout, inputs, expected):
    script = load(_text(name), device="cpu")
    assert script.format == layout and script.segments == () and script.printed == ""
    held = [tuple(t.shape) if isinstance(t, torch.Tensor) else t for t in script.inputs]
    assert held == [i if isinstance(i, float) else tuple(i) for i in inputs]
    got = script.fd.execute([t.clone() if isinstance(t, torch.Tensor) else t for t in script.inputs])
    want = expected(*script.inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w.to(g.dtype), rtol=2e-2, atol=2e-2)


def test_the_repro_inputs_keep_the_strides_and_dtypes_nvfuser_printed():
    x, index, mask, fill = load(_text("nvfuser_repro"), device="cpu").inputs
    assert x.stride() == (192, 32, 4, 1) and x.dtype == torch.float32
    assert index.dtype == torch.int64 and mask.dtype == torch.bool and fill == float("inf")


def test_thunder_repro_keeps_the_in_place_output():
    script = load(_text("thunder_repro"), device="meta")
    assert [out.alias_input for out in script.fusion.outputs] == ["T0", None]


def test_an_error_in_a_pasted_error_message_points_at_the_line_of_the_pasted_text():
    text = _text("nvfuser_error_message").replace(
        "new_shape=[5, 4, 5, 8])\n    T63", "new_shape=[5, 4, 5, 9])\n    T63"
    )
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if "[5, 4, 5, 9]" in row)
    with pytest.raises(DefinitionError) as caught:
        load(text, device="meta")
    assert caught.value.loc.line == line and "[5, 4, 5, 9]" in caught.value.loc.source_line


def test_prose_without_a_fenced_script_stays_an_error_of_the_text():
    with pytest.raises(ParseError, match="not valid Python") as caught:
        load("An error occurred while executing nvFuser FusionDefinition 0.\n", device="meta")
    assert caught.value.loc.line == 1


SEGMENTS = ("segmented group 0", "segmented group 1", "segmented group 8")


def test_a_segments_dump_lists_its_segments_and_loads_the_first():
    script = load(_text("segments_dump"), device="cpu")
    assert script.format == "nvFuser segments dump (3 segments)"
    assert script.segments == SEGMENTS and script.segment == 0
    (x,) = script.inputs
    (total,) = script.fd.execute([x])
    torch.testing.assert_close(total, x.sum(1))


@pytest.mark.parametrize(
    ("segment", "ops", "shapes"),
    [
        (0, ["sum"], [(4,)]),
        (1, ["broadcast_in_dim", "sub", "exp"], [(4, 6)]),
        (2, ["squeeze", "permute"], [(6, 4), (4, 6)]),
    ],
    ids=SEGMENTS,
)
def test_each_segment_of_a_dump_loads_on_its_own(segment, ops, shapes):
    script = load(_text("segments_dump"), device="meta", segment=segment)
    assert script.segment == segment and script.segments == SEGMENTS
    assert [expr.op.frontend_name for expr in script.fusion.exprs] == ops
    assert [script.fusion.value(out.name).shape for out in script.fusion.outputs] == shapes


def test_each_segment_takes_the_inputs_written_after_it():
    first = load(_text("segments_with_inputs"), device="cpu", segment=0)
    second = load(_text("segments_with_inputs"), device="cpu", segment=1)
    assert first.segments == second.segments == ("nvfuser_fusion_id1", "nvfuser_fusion_id2")
    assert [tuple(t.shape) for t in first.inputs] == [(3, 5)]
    x, row = second.inputs
    (out,) = second.fd.execute([x, row])
    torch.testing.assert_close(out, x - row[:, None])


@pytest.mark.parametrize("segment", [3, -1, True, "1"])
def test_a_segment_that_is_not_there_is_refused(segment):
    with pytest.raises(UnsupportedError, match="the script holds 3 segments: pick 0 to 2"):
        load(_text("segments_dump"), device="meta", segment=segment)


def test_a_script_with_one_definition_is_its_only_segment():
    text = _text("thunder_repro")
    assert load(text, device="meta", segment=0).fusion == load(text, device="meta").fusion
    with pytest.raises(UnsupportedError, match="the script holds one definition: pick 0"):
        load(text, device="meta", segment=1)


# a test method copied out of nvFuser's test class: indented, run by self.exec_nvfuser, checked by self
TEST_METHOD = """\
    def test_sum_per_dim(self):
        inputs = [torch.randn(3, 5, device="cuda")]

        for dim in (0, 1):

            def fusion_func(fd: FusionDefinition):
                t0 = fd.from_pytorch(inputs[0])
                fd.add_output(fd.ops.sum(fd.ops.exp(t0), dims=[dim]))

            nvf_out, _ = self.exec_nvfuser(fusion_func, inputs, supports_segmentation=False)
            self.assertEqual(len(inputs), 1)
            self.assertEqual(nvf_out[0], torch.exp(inputs[0]).sum(dim))
"""


@pytest.mark.parametrize("segment", [0, 1])
def test_a_test_method_pasted_alone_runs_each_definition_its_test_case_would(segment):
    script = load(TEST_METHOD, device="cpu", segment=segment)
    assert script.format == "nvFuser test method (2 definitions)" and script.text == TEST_METHOD
    (x,) = script.inputs
    torch.testing.assert_close(script.fd.execute(script.inputs)[0], x.exp().sum(segment))


def test_an_error_in_a_pasted_test_method_is_placed_on_its_own_line():
    text = TEST_METHOD.replace("fd.ops.exp(t0)", "fd.ops.exq(t0)")
    with pytest.raises(ParseError, match="did you mean") as caught:
        load(text, device="meta")
    assert caught.value.loc.line == 8


# a test function of the nvfuser_direct suite, pasted alone: the names its module imports and defines
# (partial, F, torch_dtype_to_nvfuser_dtype, LOW_VAL, its skip helpers) are the suite's own
DIRECT_TEST_FUNCTION = """\
def test_scaled_tanh(nvfuser_direct_test):
    skip_if_global_memory_below_gb(8)
    inputs = [
        torch.testing.make_tensor((4, 6), dtype=torch.bfloat16, device="cuda", low=LOW_VAL, high=HIGH_VAL)
    ]
    scale = partial(math.pow, 2.0)(3)
    dtype = torch_dtype_to_nvfuser_dtype(inputs[0].dtype)

    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.ops.tanh(fd.ops.cast(t0, DataType.Float))
        fd.add_output(fd.ops.cast(fd.ops.mul(t1, scale), dtype))

    nvf_out, _ = nvfuser_direct_test.exec_nvfuser(fusion_func, inputs)
    eager_out = F.tanh(inputs[0].float()) * scale
    nvfuser_direct_test.assertEqual(eager_out.bfloat16(), nvf_out[0])
"""


def test_a_direct_suite_test_function_pasted_alone_finds_its_modules_names():
    script = load(DIRECT_TEST_FUNCTION, device="cpu")
    assert script.format == "nvFuser test method"
    (x,) = script.inputs
    assert x.dtype == torch.bfloat16 and bool(((x >= -2) & (x <= 2)).all())
    torch.testing.assert_close(script.fd.execute(script.inputs)[0], (x.float().tanh() * 8.0).bfloat16())


def test_a_name_the_script_binds_itself_is_not_replaced_by_the_suites():
    own = "LOW_VAL = 5\nHIGH_VAL = 6\n" + DIRECT_TEST_FUNCTION
    (x,) = load(own, device="cpu").inputs
    assert bool(((x >= 5) & (x <= 6)).all())
