"""The special-value sweep: for every op of the op table and every dtype it takes, one fusion whose tensor
inputs hold every special value of that dtype (hfuse.special_values) and whose scalar operands are the
special scalars, run through the generated kernels and compared with the reference, NaN for NaN.

A binary op's case pairs every special value with every special value of each dtype the op takes (one
output per dtype pair), and with every special scalar, as a constant on either side and as a symbolic
input; ternary ops take every triple of one dtype, and every pair of their first operand with the others
of another dtype. Reductions reduce rows that each hold one special value among ordinary ones, rows of
NaN, of -inf, of +-inf and of extremes, persistent, looped and split. Ops that only move values
(views, pads, cats, gathers) move every special value.

Left out, because torch itself gives no value there: integer division (div, fmod, remainder) by zero (a
scalar divisor counts as torch converts it to the result's type: 2**40 is 0 for an Int32 tensor), which
torch refuses on the CPU and leaves undefined on CUDA, and the smallest integer divided by -1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch
from codegen_harness import DEVICE, run
from segment_cases import Builder

from hfuse.codegen import Options
from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError
from hfuse.ir import Fusion, Kind, Op, Value
from hfuse.ops import DEFINITIONS, OPS, Computed
from hfuse.reference import evaluate_values
from hfuse.segment import segment
from hfuse.special_values import SCALAR_SPECIALS, special_values
from hfuse.tolerance import compare, reduction_size

F64, F32, F16, BF16 = DataType.Double, DataType.Float, DataType.Half, DataType.BFloat16
I64, I32, BOOL = DataType.Int, DataType.Int32, DataType.Bool
DTYPES = (F64, F32, F16, BF16, I64, I32, BOOL)
FP8 = (DataType.Float8_e4m3fn, DataType.Float8_e5m2)

INTEGER_DIVISION = (Op.DIV, Op.FMOD, Op.REMAINDER, Op.MOD)
# symbolic scalar inputs: the argument path of a kernel, as opposed to constants written into it
SYMBOLIC = {F64: (math.nan, 1e300, -1e-300), I64: (2**40, -7), BOOL: (True,)}
SCALARS = SCALAR_SPECIALS
if DEVICE == "cpu":  # the interpreter's sweep stays fast: the scalars that decide most, all of them on CUDA
    SCALARS = {F64: (math.nan, -math.inf, -0.0, 1e300), I64: (-7, 2**40), BOOL: (True,)}
    SYMBOLIC = {F64: (-1e-300,), I64: (2**40,)}
# of one output: ternary and wider ops take a subset of the special values (a smaller one in the interpreter)
MAX_ELEMENTS = 4096 if DEVICE == "cuda" else 512
# reduction layouts: one block of columns, a loop over blocks, two launches (parts of rows, then partials)
LAYOUTS = {
    "persistent": Options(),
    "looped": Options(persistent_max_cols=4, persistent_reread_cols=0, loop_cols=4, row_tile=16,
                      outer_tile=16),
    "split": Options(persistent_max_cols=4, persistent_reread_cols=0, loop_cols=4, row_tile=16, outer_tile=16,
                     split_below_programs=64, split_min_cols=8, split_min_part=4, split_min_cols_outer=8,
                     split_min_part_outer=4, split_programs=64),
}  # fmt: skip


@dataclass
class Case:
    """A fusion, its inputs, and what each output computes (for failure messages)."""

    fusion: Fusion
    inputs: list[Any]
    shown: dict[str, str] = field(default_factory=dict)
    options: Options | None = None


class _Case:
    """Builds a case: inputs with their values, outputs described as the calls that made them."""

    def __init__(self) -> None:
        self.b = Builder()
        self.values: dict[str, Any] = {}
        self.shown: dict[str, str] = {}

    def tensor(self, values: Sequence[Any], dtype: DataType, shape: tuple[int, ...] | None = None) -> Value:
        data = _tensor(values, dtype)
        shape = shape or tuple(data.shape)
        x = self.b.define_tensor(shape, dtype)
        self.values[x.name] = data.reshape(shape)
        return x

    def symbolic(self, number: Any, dtype: DataType) -> Value:
        s = self.b.define_scalar(dtype)
        self.values[s.name] = number
        return s

    def output(self, value: Value, shown: str) -> None:
        self.b.add_output(value)
        self.shown[value.name] = shown

    def build(self, options: Options | None = None) -> Case:
        fusion = self.b.build()
        return Case(fusion, [self.values[name] for name in fusion.inputs], self.shown, options)


def sweep_values(dtype: DataType) -> tuple[Any, ...]:
    """The special values of `dtype` the sweep runs on this device: Triton's interpreter converts bf16 to
    fp32 through numpy, which flushes bf16 denormals to zero, so they are swept on CUDA only."""
    values = special_values(dtype)
    if DEVICE == "cpu" and dtype is BF16:
        tiniest = torch.finfo(torch.bfloat16).smallest_normal
        values = tuple(v for v in values if not (v != 0 and abs(v) < tiniest))
    return values


def _tensor(values: Sequence[Any], dtype: DataType) -> torch.Tensor:
    if dtype.is_float:
        return torch.tensor(values, dtype=torch.float64).to(dtype.torch)
    return torch.tensor(values, dtype=dtype.torch)


def _name(dtype: DataType) -> str:
    return dtype.name


def _shown_scalar(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**31:
        return (
            f"-2**{(-value).bit_length() - 1}" if value < 0 and (-value) & (-value - 1) == 0 else hex(value)
        )
    return repr(value)


def _probe(dtype: DataType) -> Value:
    """A tensor operand of `dtype` for asking the op's rule what it takes (not an input of any fusion)."""
    return Value("probe", Kind.TENSOR, dtype, (1,), (1,))


def _accepts(op: Op, operands: Sequence[Value]) -> bool:
    try:
        OPS[op].rule(op, list(operands), {})
    except DefinitionError:
        return False
    return True


def _subset(values: tuple[Any, ...], arity: int) -> tuple[Any, ...]:
    """At most MAX_ELEMENTS ** (1 / arity) of `values`, NaN, the infinities and zeros first."""
    keep = max(2, int(MAX_ELEMENTS ** (1 / arity)))
    return values[:keep]


# ------------------------------------------------------------------------------------ elementwise ops


def _dividing_by_zero(op: Op, out: DataType, divisor: Any, dividend: Any = 1) -> bool:
    if op not in INTEGER_DIVISION or out.is_float:
        return False
    # torch converts a scalar divisor to the result's type first: an Int32 tensor divided by 2**40 is
    # divided by 0
    divisor = torch.tensor(divisor).to(out.torch).item()
    if divisor == 0:
        return True
    return divisor == -1 and isinstance(dividend, int) and dividend in (-(2**63), -(2**31))


def elementwise_case(op: Op, dtype: DataType) -> Case | None:
    """`op` over every special value of `dtype` (and of every dtype paired with it, and special scalars)."""
    arity = OPS[op].rule.arity
    if not _accepts(op, [_probe(dtype)] * arity):
        return None
    c = _Case()
    values = sweep_values(dtype)
    if arity == 1:
        (out,) = c.b.add(op, [c.tensor(values, dtype)])
        c.output(out, f"{op.frontend_name}({_name(dtype)} tensor)")
        return c.build()
    if arity == 2:
        _binary_pairs(c, op, dtype, values)
        _binary_scalars(c, op, dtype, values)
        return c.build()
    _wider(c, op, dtype, arity)
    return c.build()


def partners(dtype: DataType) -> tuple[DataType, ...]:
    """The dtypes whose special values meet those of `dtype` in a binary or wider op: all of them on CUDA;
    in the interpreter, `dtype` itself and the next dtype in turn (each pair is met from one side)."""
    if DEVICE == "cuda":
        return DTYPES
    return (dtype, DTYPES[(DTYPES.index(dtype) + 1) % len(DTYPES)])


def _binary_pairs(c: _Case, op: Op, dtype: DataType, values: tuple[Any, ...]) -> None:
    for other in partners(dtype):
        probe = [_probe(dtype), _probe(other)]
        if not _accepts(op, probe):
            continue
        out_dtype = OPS[op].rule(op, probe, {}).outputs[0].dtype
        pairs = [
            (a, b) for a in values for b in sweep_values(other) if not _dividing_by_zero(op, out_dtype, b, a)
        ]
        x = c.tensor([a for a, _ in pairs], dtype)
        y = c.tensor([b for _, b in pairs], other)
        (out,) = c.b.add(op, [x, y])
        c.output(out, f"{op.frontend_name}({_name(dtype)} tensor, {_name(other)} tensor)")


def _binary_scalars(c: _Case, op: Op, dtype: DataType, values: tuple[Any, ...]) -> None:
    x = c.tensor(values, dtype)
    scalars = [(c.b.const(v, kind), f"{_name(kind)} {_shown_scalar(v)}") for kind, vs in SCALARS.items()
               for v in vs]  # fmt: skip
    scalars += [(c.symbolic(v, kind), f"symbolic {_name(kind)} {_shown_scalar(v)}") for kind, vs in
                SYMBOLIC.items() for v in vs]  # fmt: skip
    for s, shown in scalars:
        for operands, text in (
            ([x, s], f"{_name(dtype)} tensor, {shown}"),
            ([s, x], f"{shown}, {_name(dtype)} tensor"),
        ):
            if not _accepts(op, operands):
                continue
            out_dtype = OPS[op].rule(op, operands, {}).outputs[0].dtype
            divisor = operands[1]
            if divisor.is_scalar and _dividing_by_zero(
                op, out_dtype, c.values.get(divisor.name, divisor.const)
            ):
                continue
            if divisor.is_tensor and op in INTEGER_DIVISION and not out_dtype.is_float:
                continue  # the tensor holds 0
            (out,) = c.b.add(op, operands)
            c.output(out, f"{op.frontend_name}({text})")


def _wider(c: _Case, op: Op, dtype: DataType, arity: int) -> None:
    """Every tuple of a subset of the special values of `dtype`; then the first operand of `dtype` with
    the others of each other dtype the op takes, and each operand a special scalar in turn."""
    values = _subset(sweep_values(dtype), arity)
    tuples = list(_product(values, arity))
    operands = [c.tensor([t[k] for t in tuples], dtype) for k in range(arity)]
    (out,) = c.b.add(op, operands)
    c.output(out, f"{op.frontend_name}({', '.join([f'{_name(dtype)} tensor'] * arity)})")
    for other in partners(dtype):
        if other is dtype:
            continue
        probe = [_probe(dtype)] + [_probe(other)] * (arity - 1)
        if not _accepts(op, probe):
            continue
        theirs = sweep_values(other)
        pairs = [(a, b) for a in sweep_values(dtype) for b in theirs]
        x = c.tensor([a for a, _ in pairs], dtype)
        y = c.tensor([b for _, b in pairs], other)
        (out,) = c.b.add(op, [x] + [y] * (arity - 1))
        c.output(out, f"{op.frontend_name}({_name(dtype)} tensor, {_name(other)} tensors)")
    pairs = list(_product(_subset(sweep_values(dtype), 2), 2))
    x = c.tensor([a for a, _ in pairs], dtype)
    y = c.tensor([b for _, b in pairs], dtype)
    for kind, scalars in SCALARS.items():
        for v in scalars:
            s = c.b.const(v, kind)
            for position in range(arity):
                rest = iter([x, y] + [y] * arity)
                operands = [s if k == position else next(rest) for k in range(arity)]
                if not _accepts(op, operands):
                    continue
                (out,) = c.b.add(op, operands)
                shown = [
                    f"{_name(kind)} {_shown_scalar(v)}" if k == position else "tensor" for k in range(arity)
                ]
                c.output(out, f"{op.frontend_name}({', '.join(shown)}) of {_name(dtype)} tensors")


def _product(values: tuple[Any, ...], arity: int) -> list[tuple[Any, ...]]:
    tuples: list[tuple[Any, ...]] = [()]
    for _ in range(arity):
        tuples = [t + (v,) for t in tuples for v in values]
    return tuples


# ------------------------------------------------------------------------------------- other ops


def _rows(dtype: DataType) -> list[list[Any]]:
    """Rows of 4 for reductions: each special value among ordinary ones, then rows that decide on their
    own (all NaN, all -inf, both infinities, extremes that overflow a sum, signed zeros)."""
    values = sweep_values(dtype)
    if dtype is BOOL:
        return [[False] * 4, [True] * 4, [False, True, False, False], [True, False, True, True]]
    ordinary = [1, 2, 0, 3] if not dtype.is_float else [1.0, -2.5, 0.5, 3.0]
    rows = [[v, *ordinary[1:]] for v in values] + [[*ordinary[:2], v, ordinary[3]] for v in values]
    if dtype.is_float:
        info = torch.finfo(dtype.torch)
        rows += [[math.nan] * 4, [-math.inf] * 4, [math.inf, -math.inf, 1.0, 1.0], [info.max] * 4,
                 [info.min] * 4, [-0.0, 0.0, -0.0, -0.0], [math.inf] * 4]  # fmt: skip
    else:
        info = torch.iinfo(dtype.torch)
        rows += [[info.max] * 4, [info.min] * 4, [info.max, info.min, 0, -1]]
    return rows


REDUCTIONS = (Op.SUM, Op.MAX, Op.MIN, Op.PROD)
STATISTICS = (Op.VAR, Op.VAR_MEAN, Op.WELFORD)


def reduction_cases(op: Op, dtype: DataType) -> dict[str, Case]:
    """`op` over rows of special values, in each layout: along the rows (inner) and along the columns of
    the transpose (outer); statistics of floating-point rows only."""
    if op in STATISTICS and not dtype.is_float:
        return {}
    rows = _rows(dtype)
    flat = [v for row in rows for v in row]
    cases = {}
    for layout, options in LAYOUTS.items():
        c = _Case()
        if layout == "split":  # few long rows: the rows side by side make one row of all the values
            x = c.tensor(flat * 4, dtype, (2, 2 * len(flat)))
            dims = [1]
        else:
            x = c.tensor(flat, dtype, (len(rows), 4))
            dims = [1]
        attrs = {"dims": dims, "keepdim": False}
        if op in (Op.VAR, Op.VAR_MEAN):
            attrs["correction"] = 1
        if op is Op.WELFORD:
            attrs = {"dims": dims}
        for k, out in enumerate(c.b.add(op, [x], attrs)):
            c.output(out, f"{op.frontend_name}({_name(dtype)} rows)[{k}], {layout}")
        cases[layout] = c.build(options)
        if layout == "persistent":
            c = _Case()
            x = c.tensor(flat, dtype, (len(rows), 4))
            xt = c.b.op(Op.PERMUTE, x, dims=[1, 0])
            attrs = {**attrs, "dims": [0]}
            for k, out in enumerate(c.b.add(op, [xt], attrs)):
                c.output(out, f"{op.frontend_name}({_name(dtype)} columns)[{k}]")
            cases["outer"] = c.build(options)
    return cases


def softmax_cases(dtype: DataType) -> dict[str, Case]:
    """max, then sum(exp(x - max)) over rows of special values: the one-pass online form when looped."""
    cases = {}
    rows = _rows(dtype)
    for layout in ("persistent", "looped"):
        c = _Case()
        x = c.tensor([v for row in rows for v in row], dtype, (len(rows), 4))
        xf = c.b.cast(x, F32) if dtype is not F64 else x
        peak = c.b.op(Op.MAX, xf, dims=[1], keepdim=True)
        e = c.b.op(Op.EXP, c.b.op(Op.SUB, xf, peak))
        total = c.b.op(Op.SUM, e, dims=[1], keepdim=True)
        c.output(c.b.op(Op.DIV, e, total), f"softmax({_name(dtype)} rows), {layout}")
        c.output(c.b.op(Op.MIN, xf, dims=[1], keepdim=False), f"min({_name(dtype)} rows), {layout}")
        cases[layout] = c.build(LAYOUTS[layout])
    return cases


def cast_case(dtype: DataType) -> Case:
    c = _Case()
    x = c.tensor(sweep_values(dtype), dtype)
    for target in (*DTYPES, *FP8):
        c.output(c.b.cast(x, target), f"cast({_name(dtype)} tensor, {_name(target)})")
    return c.build()


def fill_case(dtype: DataType) -> Case:
    """full, pad and where with every special value of `dtype` as the fill: a constant and a symbolic scalar
    (bf16's lowest value as a mask fill, say)."""
    c = _Case()
    values = sweep_values(dtype)
    x = c.tensor(values, dtype)
    kept = c.b.op(Op.NE, x, c.b.const(0, I64))
    kind = F64 if dtype.is_float else (BOOL if dtype is BOOL else I64)
    for v in values:
        for fill, shown in ((c.b.const(v, kind), "constant"), (c.symbolic(v, kind), "symbolic")):
            shown = f"{shown} {_shown_scalar(v)}"
            full = c.b.op(Op.FULL, fill, shape=[len(values)], dtype=dtype)
            c.output(full, f"full({shown}, {_name(dtype)})")
            c.output(c.b.op(Op.PAD, x, fill, pad_widths=[1, 2]), f"pad({_name(dtype)} tensor, {shown})")
            c.output(c.b.op(Op.WHERE, kept, full, x), f"where(x != 0, full({shown}), x) of {_name(dtype)}")
            c.output(c.b.op(Op.WHERE, kept, x, fill), f"where(x != 0, x, {shown}) of {_name(dtype)}")
    return c.build()


def movement_case(dtype: DataType) -> Case:
    """Every op that moves values (views, slices, cats, pads, gathers, triu) moving the special values."""
    c = _Case()
    values = list(sweep_values(dtype))
    n = len(values)
    x = c.tensor(values * 2, dtype, (2, n))
    b = c.b
    moved = {
        "broadcast_in_dim": b.bcast(b.slice(x, [0, 0], [1, n]), (3, 1, n), [1, 2]),
        "broadcast": b.op(Op.BROADCAST, x, is_broadcast_dim=[False, True, False]),
        "expand": b.op(Op.EXPAND, b.slice(x, [0, 0], [1, n]), shape=[3, n]),
        "reshape": b.op(Op.RESHAPE, x, new_shape=[n, 2]),
        "permute": b.op(Op.PERMUTE, x, dims=[1, 0]),
        "squeeze": b.op(Op.SQUEEZE, b.slice(x, [1, 0], [2, n]), dims=[0]),
        "stride_order": b.op(Op.STRIDE_ORDER, x, stride_order=[0, 1]),
        "slice": b.slice(x, [0, 1], [2, n]),
        "pad": b.op(Op.PAD, x, pad_widths=[1, 1]),
        "cat": b.op(Op.CAT, x, b.slice(x, [0, 0], [2, 2]), dim=1),
        "triu": b.op(Op.TRIU, x, diagonal=1),
    }
    index = c.tensor(list(reversed(range(n))), I64)
    gathered = c.tensor([[k % n for k in range(n)], [(3 * k) % n for k in range(n)]], I64)
    moved["index_select"] = b.op(Op.INDEX_SELECT, x, index, dim=1)
    moved["select"] = b.op(Op.SELECT, x, b.const(1, I64), dim=0)
    moved["gather"] = b.op(Op.GATHER, x, gathered, dim=1)
    moved["take_along_axis"] = b.op(Op.TAKE_ALONG_AXIS, x, gathered, dim=1)
    for name, value in moved.items():
        c.output(value, f"{name}({_name(dtype)} tensor)")
    return c.build()


def creation_case(dtype: DataType) -> Case | None:
    """iota from special starts and steps; uniform and normal between special bounds."""
    if not dtype.is_float and dtype is not I64:
        return None
    c = _Case()
    kind = F64 if dtype.is_float else I64
    starts = sweep_values(dtype)[:6] if dtype.is_float else (0, -7, 2**40, 2**62)
    for start in starts:
        for step in starts:
            iota = c.b.op(Op.IOTA, c.b.const(start, kind), c.b.const(step, kind), length=3, dtype=dtype)
            c.output(iota, f"iota(start {start!r}, step {step!r}, {_name(dtype)})")
    if dtype.is_float:
        seed, offset = c.b.const(7, I64), c.b.const(3, I64)
        for low, high in (
            (0.0, math.inf),
            (math.nan, 1.0),
            (-1e300, 1e300),
            (-math.inf, math.inf),
            (2.0, 2.0),
        ):
            bounds = [c.b.const(low, F64), c.b.const(high, F64), seed, offset]
            for op in (Op.UNIFORM, Op.NORMAL):
                value = c.b.op(op, *bounds, shape=[5], dtype=dtype)
                c.output(value, f"{op.frontend_name}({low!r}, {high!r}, {_name(dtype)})")
    return c.build()


# ------------------------------------------------------------------------------------------ running


def cases(op: Op, dtype: DataType) -> dict[str, Case]:
    """The cases of `op` and `dtype`, by layout (one for most ops), empty where the op does not take it."""
    if OPS[op].computed is Computed.BY_EMITTER:
        case = elementwise_case(op, dtype)
        return {"": case} if case is not None else {}
    if op in REDUCTIONS or op in STATISTICS:
        return reduction_cases(op, dtype)
    builder = STRUCTURAL.get(op)
    case = builder(dtype) if builder is not None else None
    return {"": case} if case is not None else {}


STRUCTURAL: dict[Op, Callable[[DataType], Case | None]] = {
    Op.CAST: cast_case,
    Op.FULL: fill_case,
    Op.IOTA: creation_case,
    Op.UNIFORM: creation_case,
    Op.NORMAL: creation_case,
    **{op: movement_case for op in (
        Op.BROADCAST_IN_DIM, Op.BROADCAST, Op.EXPAND, Op.RESHAPE, Op.PERMUTE, Op.SQUEEZE, Op.STRIDE_ORDER,
        Op.SLICE, Op.PAD, Op.CAT, Op.TRIU, Op.INDEX_SELECT, Op.SELECT, Op.GATHER, Op.TAKE_ALONG_AXIS)},
}  # fmt: skip


def swept_ops() -> list[Op]:
    """Every op a kernel computes (torch runs the others: the reference itself)."""
    return [d.op for d in DEFINITIONS if d.computed is not Computed.IN_TORCH]


def on_device(value: Any) -> Any:
    return value.to(DEVICE) if isinstance(value, torch.Tensor) else value


def op_mismatches(op: Op, dtype: DataType) -> list[str]:
    """Every mismatch of every case of `op` and `dtype`, each prefixed with its layout."""
    return [
        f"[{layout or 'kernel'}] {m}" for layout, case in cases(op, dtype).items() for m in mismatches(case)
    ]


def softmax_mismatches(dtype: DataType) -> list[str]:
    return [f"[{layout}] {m}" for layout, case in softmax_cases(dtype).items() for m in mismatches(case)]


def mismatches(case: Case) -> list[str]:
    """Each output of `case` that differs from the reference, with what it computes and how it differs."""
    fusion = case.fusion
    inputs = [on_device(v) for v in case.inputs]
    try:
        expected = evaluate_values(fusion, inputs)
    except DefinitionError as err:  # torch refuses the op on these types (abs of Bool, frac of Int)
        if "torch could not evaluate" not in str(err):
            raise
        pytest.skip(f"torch gives no value to compare with: {err.reason}")
    env: dict[str, Any] = dict(zip(fusion.inputs, inputs, strict=True))
    groups = segment(fusion).groups
    for group in groups:
        if group.kind.launches_kernel:
            env.update(run(group, fusion, env, case.options))
        else:
            env.update({name: expected[name] for name in group.outputs})
    found = []
    for out in fusion.outputs:
        got, want = env[out.name], expected[out.name]
        result = compare(got, want, fusion.value(out.name).dtype, reduction_size(fusion, out.name))
        if not result.ok:
            found.append(f"{case.shown.get(out.name, out.name)}: {result.message}")
    return found
