"""The op builder's edits (hfuse.edit) and the segment export (hfuse.export), checked by
reparsing the printed text and running it against torch."""

import pytest
import torch

from hfuse import edit, export
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError
from hfuse.ir import Op
from hfuse.loader import load
from hfuse.printer import print_fusion
from hfuse.reference import evaluate
from hfuse.segment.model import Group, SchedulerKind


def built(*steps):
    fusion = edit.add_input(edit.empty_fusion(), (4, 8), DataType.Float)
    for op, operands, attrs in steps:
        fusion = edit.add_op(fusion, op, operands, attrs)
    return fusion


def test_steps_print_a_script_that_parses_to_the_same_fusion():
    fusion = built((Op.MUL, ["T0", "2.0"], {}), (Op.SUM, ["T1"], {"dims": (1,)}))
    assert load(print_fusion(fusion), device="meta").fusion == fusion


def test_builder_fusion_computes_what_torch_does():
    fusion = built((Op.MUL, ["T0", "0.5"], {}), (Op.EXP, ["T1"], {}), (Op.SUM, ["T2"], {"dims": (-1,)}))
    x = torch.randn(4, 8)
    (result,) = evaluate(fusion, [x])
    torch.testing.assert_close(result, torch.exp(x * 0.5).sum(-1))


def test_a_new_op_takes_over_the_output_it_consumes():
    fusion = built((Op.RELU, ["T0"], {}), (Op.NEG, ["T1"], {}))
    assert fusion.output_names == ("T2",)
    kept = edit.add_output(fusion, "T1")
    assert kept.output_names == ("T2", "T1")


def test_a_second_input_and_a_binary_op():
    fusion = edit.add_input(built(), (4, 8), DataType.Half)
    fusion = edit.add_op(fusion, Op.ADD, ["T0", "T1"], {})
    assert [v.shape for v in fusion.tensors()] == [(4, 8)] * 3
    assert fusion.value(fusion.output_names[0]).dtype is DataType.Float


BAD_STEPS = {
    "unknown operand": ((Op.NEG, ["T9"], {}), "T9 is not a value of this fusion"),
    "shapes that do not fit": ((Op.RESHAPE, ["T0"], {"new_shape": (5, 5)}), "reshape"),
}


@pytest.mark.parametrize("step, message", BAD_STEPS.values(), ids=BAD_STEPS.keys())
def test_bad_steps_raise_definition_errors(step, message):
    with pytest.raises(DefinitionError, match=message):
        built(step)


PARAMS = {
    "ints with brackets": (edit.Param("dims", "ints"), "[0, 2, 1]", (0, 2, 1)),
    "ints bare": (edit.Param("dims", "ints"), "-1", (-1,)),
    "int": (edit.Param("dim", "int"), " 3 ", 3),
    "bool": (edit.Param("keepdim", "bool"), "true", True),
    "dtype": (edit.Param("dtype", "dtype"), "DataType.Half", DataType.Half),
}


@pytest.mark.parametrize("param, text, value", PARAMS.values(), ids=PARAMS.keys())
def test_parse_param(param, text, value):
    assert edit.parse_param(param, text) == value


BAD_PARAMS = {
    "ints": (edit.Param("dims", "ints"), "0, x", "dims='0, x' is not valid: write it like 0, 2, 1"),
    "bool": (
        edit.Param("keepdim", "bool"),
        "maybe",
        "keepdim='maybe' is not valid: write it like True or False",
    ),
    "dtype": (edit.Param("dtype", "dtype"), "Float17", "dtype='Float17' is not valid: write it like Float"),
}


@pytest.mark.parametrize("param, text, message", BAD_PARAMS.values(), ids=BAD_PARAMS.keys())
def test_parse_param_rejects_bad_text(param, text, message):
    with pytest.raises(DefinitionError, match=message):
        edit.parse_param(param, text)


def test_every_offered_op_has_a_name_and_operands():
    forms = edit.op_forms()
    names = [form.op.frontend_name for form in forms]
    assert {"add", "exp", "sum", "reshape", "permute", "slice", "cat", "cast"} <= set(names)
    assert all(form.operands for form in forms)


def test_a_segment_exports_as_a_standalone_script():
    fusion = built((Op.MUL, ["T0", "2.0"], {}), (Op.EXP, ["T1"], {}), (Op.SUM, ["T2"], {"dims": (1,)}))
    mul, exp_, total = fusion.exprs
    second = Group(1, SchedulerKind.REDUCTION, (exp_, total), ("T1",), total.outputs)
    script = export.segment_script(fusion, second)
    assert script.startswith("# Segment 1 (reduction)")
    segment = load(script, device="cpu")
    assert [e.op for e in segment.fusion.exprs] == [Op.EXP, Op.SUM]
    assert len(segment.fusion.inputs) == 1 and segment.fusion.value(segment.fusion.inputs[0]).shape == (4, 8)
    (result,) = evaluate(segment.fusion, segment.inputs)
    torch.testing.assert_close(result, torch.exp(segment.inputs[0]).sum(1))
