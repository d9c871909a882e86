"""The op table: every op has one entry with every piece, and inference, the reference, the segmenter
and codegen agree with what the entry says (a kernel computes the op, or torch does)."""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from codegen_harness import DOMAIN, check, run

from hfuse.builder import FusionBuilder
from hfuse.codegen.lower import HANDLERS
from hfuse.dtypes import DataType
from hfuse.infer.elementwise import ElementwiseRule, OperandTypes
from hfuse.ir import Family, Fusion, Op
from hfuse.ops import DEFINITIONS, OPS, Computed
from hfuse.segment import segment
from hfuse.segment.model import SchedulerKind

F32, F16, I32, I64, F64, BOOL = (DataType.Float, DataType.Half, DataType.Int32, DataType.Int, DataType.Double,
                                 DataType.Bool)  # fmt: skip
KERNEL_KINDS = {SchedulerKind.POINTWISE, SchedulerKind.TRANSPOSE, SchedulerKind.REDUCTION,
                SchedulerKind.NORMALIZATION}  # fmt: skip
SHAPE = (3, 7)


def ops_computed(computed: Computed) -> list[Op]:
    return [d.op for d in DEFINITIONS if d.computed is computed]


def name(op: Op) -> str:
    return op.frontend_name


def build(op: Op, operands: list, attrs: dict | None = None) -> Fusion:
    """A fusion of one `op`: an operand is (shape, dtype) for a tensor input, or a dtype for a scalar one."""
    b = FusionBuilder()
    values = [b.define_tensor(*o) if isinstance(o, tuple) else b.define_scalar(o) for o in operands]
    for out in b.add(op, values, attrs or {}):
        b.add_output(out)
    return b.build()


def elementwise_case(op: Op) -> tuple[Fusion, dict]:
    """`op` on operands of a type it takes, with values where it is defined."""
    rule = OPS[op].rule
    integer = rule.operands in (OperandTypes.INTEGER, OperandTypes.INTEGER_OR_BOOL)
    dtypes = [BOOL, F32, F32] if op is Op.WHERE else [I32 if integer else F32] * rule.arity
    fusion = build(op, [(SHAPE, d) for d in dtypes])
    ranges = dict.fromkeys(fusion.inputs, DOMAIN.get(op, (-3.0, 3.0)))
    if integer:  # shift counts and divisors from 1 to 5
        ranges = dict(zip(fusion.inputs, [(-20, 20), (1, 6)], strict=False))
    return fusion, ranges


X, ROWS, INDEX = ((4, 6), F32), ((5, 6), F32), ((5, 3), I64)
# op: (operands, attrs, value ranges by operand position); indices stay inside the extents they pick from
STRUCTURAL_CASES = {
    Op.CAST: ([X], {"dtype": F16}, {}),
    Op.SUM: ([X], {"dims": [1]}, {}),
    Op.MAX: ([X], {"dims": [1]}, {}),
    Op.MIN: ([X], {"dims": [0]}, {}),
    Op.PROD: ([X], {"dims": [1]}, {0: (0.5, 1.5)}),
    Op.VAR: ([X], {"dims": [1]}, {}),
    Op.VAR_MEAN: ([X], {"dims": [1]}, {}),
    Op.WELFORD: ([X], {"dims": [1]}, {}),
    Op.CUMSUM: ([X], {"dim": 1}, {}),
    Op.CUMPROD: ([X], {"dim": 1}, {}),
    Op.CUMMAX: ([X], {"dim": 1}, {}),
    Op.CUMMIN: ([X], {"dim": 0}, {}),
    Op.ARGSORT: ([X], {"dim": 1}, {}),
    Op.TOPK: ([X], {"k": 2, "dim": 1}, {}),
    Op.BROADCAST_IN_DIM: ([((6,), F32)], {"shape": [4, 6], "broadcast_dims": [1]}, {}),
    Op.BROADCAST: ([((6,), F32)], {"is_broadcast_dim": [True, False]}, {}),
    Op.EXPAND: ([((1, 6), F32)], {"shape": [4, 6]}, {}),
    Op.RESHAPE: ([X], {"new_shape": [2, 12]}, {}),
    Op.PERMUTE: ([X], {"dims": [1, 0]}, {}),
    Op.SQUEEZE: ([((4, 1, 6), F32)], {"dims": [1]}, {}),
    Op.STRIDE_ORDER: ([X], {"stride_order": [0, 1]}, {}),
    Op.SLICE: ([X], {"starts": [1, 0], "ends": [3, 4]}, {}),
    Op.PAD: ([X, F64], {"pad_widths": [1, 2]}, {}),
    Op.CAT: ([X, ((4, 3), F32)], {"dim": 1}, {}),
    Op.FULL: ([F64], {"shape": [4, 6], "dtype": F32}, {}),
    Op.IOTA: ([I64, I64], {"length": 6, "dtype": I64}, {}),
    Op.UNIFORM: ([F64, F64, I64, I64], {"shape": [4, 6], "dtype": F32}, {2: (0, 2**40), 3: (0, 9)}),
    Op.NORMAL: ([F64, F64, I64, I64], {"shape": [4, 6], "dtype": F16}, {1: (0.5, 2.0), 2: (0, 77)}),
    Op.TRIU: ([X], {"diagonal": 1}, {}),
    Op.INDEX_SELECT: ([ROWS, ((3,), I64)], {"dim": 0}, {1: (0, 5)}),
    Op.SELECT: ([ROWS, I64], {"dim": 0}, {}),
    Op.GATHER: ([ROWS, INDEX], {"dim": 1}, {1: (0, 6)}),
    Op.TAKE_ALONG_AXIS: ([ROWS, INDEX], {"dim": 1}, {1: (0, 6)}),
    Op.SCATTER: ([ROWS, INDEX, ((5, 3), F32)], {"dim": 1}, {1: (0, 6)}),
    Op.INDEX_PUT_ACCUMULATE: ([((5, 3), F32), ((4,), I64), ((4, 3), F32)], {}, {1: (0, 5)}),
    Op.EMBEDDING_FWD: ([((4,), I64), ((6, 3), F32)], {}, {0: (0, 6)}),
    Op.MATMUL: ([((3, 4), F32), ((4, 5), F32)], {}, {}),
    Op.LINEAR: ([((3, 4), F32), ((5, 4), F32)], {}, {}),
    # query [1, 2, 3, 4], key and value [1, 2, 5, 4]; dropout_p and is_causal are symbolic scalar inputs
    Op.SDPFA_FWD: (
        [((1, 2, 3, 4), F16), ((1, 2, 5, 4), F16), ((1, 2, 5, 4), F16), F64, BOOL],
        {},
        {3: (0, 0)},
    ),
    Op.SDPFA_BWD: (
        [
            ((1, 2, 3, 4), F16),
            ((1, 2, 3, 4), F16),
            ((1, 2, 5, 4), F16),
            ((1, 2, 5, 4), F16),
            ((1, 2, 3, 4), F16),
            ((1, 2, 3), F32),
            F64,
            BOOL,
            ((), I64),
            ((), I64),
        ],
        {},
        {6: (0, 0)},
    ),
}


def case(op: Op) -> tuple[Fusion, dict]:
    """A small fusion applying `op`, and the value ranges of its inputs."""
    if OPS[op].computed is Computed.BY_EMITTER:
        return elementwise_case(op)
    operands, attrs, ranges = STRUCTURAL_CASES[op]
    fusion = build(op, operands, attrs)
    return fusion, {fusion.inputs[k]: low_high for k, low_high in ranges.items()}


def test_every_op_has_exactly_one_entry():
    counts = Counter(d.op for d in DEFINITIONS)
    assert {op: counts[op] for op in Op if counts[op] != 1} == {}
    assert list(OPS) == [d.op for d in DEFINITIONS]


@pytest.mark.parametrize("op", list(Op), ids=name)
def test_every_entry_has_a_rule_and_a_meaning(op):
    definition = OPS[op]
    assert callable(definition.rule) and callable(definition.meaning)
    elementwise = op.family in (Family.UNARY, Family.BINARY, Family.TERNARY)
    assert isinstance(definition.rule, ElementwiseRule) == elementwise, "elementwise dtype rules are data"
    assert (definition.computed is Computed.BY_EMITTER) == elementwise


@pytest.mark.parametrize("op", ops_computed(Computed.BY_EMITTER), ids=name)
def test_ops_a_kernel_emits_have_an_emitter_and_no_handler(op):
    definition = OPS[op]
    assert definition.emitter is not None and definition.policy is not None
    assert op not in HANDLERS and not definition.reduces


@pytest.mark.parametrize("op", ops_computed(Computed.BY_LOWERING), ids=name)
def test_ops_a_kernel_lowers_have_a_handler(op):
    definition = OPS[op]
    assert definition.emitter is None and definition.policy is None
    assert (op in HANDLERS) != definition.reduces, "a handler, or the reduction kernels' reducer"


@pytest.mark.parametrize("op", ops_computed(Computed.IN_TORCH), ids=name)
def test_ops_torch_runs_have_no_emitter_and_no_handler(op):
    definition = OPS[op]
    assert definition.emitter is None and op not in HANDLERS and not definition.reduces


def test_every_structural_op_has_a_case():
    assert sorted(d.op.name for d in DEFINITIONS if d.computed is not Computed.BY_EMITTER) == sorted(
        op.name for op in STRUCTURAL_CASES
    )


@pytest.mark.parametrize("op", list(Op), ids=name)
def test_the_segmenter_gives_the_op_to_kernels_or_to_torch_as_the_table_says(op):
    fusion, _ = case(op)
    groups = segment(fusion).groups
    kinds = {g.kind for g in groups if any(e.op is op for e in g.exprs)}
    if OPS[op].runs_in_torch:
        assert kinds == {SchedulerKind.TORCH}
        assert f"{op.frontend_name} runs in torch" in groups[0].note
    else:
        assert kinds and kinds <= KERNEL_KINDS


@pytest.mark.parametrize("op", [d.op for d in DEFINITIONS if not d.runs_in_torch], ids=name)
def test_generated_kernels_compute_the_op_as_torch_does(op):
    fusion, ranges = case(op)
    reduced = max((len(e.attr("dims", ())) for e in fusion.exprs if OPS[e.op].reduces), default=0)
    check(fusion, segment(fusion).groups, ranges, reduction_size=6 if reduced else 1)


@pytest.mark.parametrize(
    "dtype, scalar", [(F32, F64), (F16, F64), (F64, F64), (I32, I64), (BOOL, BOOL)], ids=str
)
def test_imag_of_real_values_is_zero_in_kernels(dtype, scalar):
    b = FusionBuilder()
    x, s = b.define_tensor((6,), dtype), b.define_scalar(scalar)
    (imag_x,) = b.add(Op.IMAG, [x])
    (imag_s,) = b.add(Op.IMAG, [s])
    (total,) = b.add(Op.ADD, [imag_x, imag_s])
    b.add_output(total)
    fusion = b.build()
    (group,) = segment(fusion).groups
    assert group.kind is SchedulerKind.POINTWISE
    values = (
        [float("nan"), float("inf"), -float("inf"), -2.5, 0.0, 7.0] if dtype.is_float else [1, 0, 1, 5, 0, 1]
    )
    given = torch.tensor(values).to(dtype.torch)
    number = {F64: float("inf"), I64: 3, BOOL: True}[scalar]
    (got,) = run(group, fusion, {x.name: given, s.name: number}).values()
    assert torch.equal(got, torch.zeros(6, dtype=total.dtype.torch))
