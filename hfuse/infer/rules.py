"""Shape and dtype inference: what each op's outputs are, and its attributes in normalized form.

`infer(op, inputs, attrs)` looks the op up in a rule table (with a default rule per family) and
returns the normalized attributes and one OutSpec per output. Rules validate their operands and
attributes and raise DefinitionError saying what was given and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hfuse import settings
from hfuse.dtypes import DataType
from hfuse.errors import LimitError, UnsupportedError
from hfuse.infer.common import (
    BOOL,
    COMPLEX,
    FLOAT,
    INT,
    Inferred,
    OutSpec,
    as_dtype,
    as_int,
    as_int_tuple,
    broadcast_extents,
    broadcast_shapes,
    category,
    check_attrs,
    expect_arity,
    expect_scalar,
    expect_tensor,
    fail,
    floating,
    promote,
    real_dtype,
    scalar_out,
    tensor_out,
)
from hfuse.infer.indexing import INDEXING_RULES
from hfuse.infer.reductions import REDUCTION_RULES
from hfuse.infer.views import VIEW_RULES
from hfuse.ir import Family, Op, Value

Rule = Callable[[Op, list[Value], dict[str, Any]], Inferred]

BOOL_RESULT = frozenset({
    Op.EQ, Op.GE, Op.GT, Op.LE, Op.LT, Op.NE, Op.LOGICAL_AND, Op.LOGICAL_OR, Op.LOGICAL_NOT,
    Op.ISFINITE, Op.ISINF, Op.ISNAN, Op.ISNEGINF, Op.ISPOSINF, Op.ISREAL, Op.SIGNBIT,
})  # fmt: skip
FLOAT_RESULT = frozenset({
    Op.ACOS, Op.ACOSH, Op.ASIN, Op.ASINH, Op.ATAN, Op.ATANH, Op.COS, Op.COSH, Op.EXP, Op.EXP2,
    Op.EXPM1, Op.ERF, Op.ERFC, Op.ERFINV, Op.ERFCINV, Op.LGAMMA, Op.LOG, Op.LOG10, Op.LOG1P, Op.LOG2,
    Op.RECIPROCAL, Op.RSQRT, Op.SIGMOID, Op.SILU, Op.SIN, Op.SINH, Op.SQRT, Op.TAN, Op.TANH,
    Op.ATAN2, Op.TRUEDIV,
})  # fmt: skip
INTEGER_ONLY = frozenset({
    Op.BITWISE_LEFT_SHIFT, Op.BITWISE_RIGHT_SHIFT, Op.LOGICAL_RIGHT_SHIFT, Op.GCD,
})  # fmt: skip
INTEGER_OR_BOOL_ONLY = frozenset({Op.BITWISE_NOT, Op.BITWISE_AND, Op.BITWISE_OR, Op.BITWISE_XOR})
REAL_ONLY = frozenset({
    Op.CEIL, Op.FLOOR, Op.FRAC, Op.ROUND, Op.TRUNC, Op.FMOD, Op.REMAINDER, Op.MOD, Op.MINIMUM,
    Op.MAXIMUM, Op.ATAN2, Op.NEXTAFTER, Op.SIGNBIT, Op.ERFINV, Op.ERFCINV, Op.LGAMMA,
})  # fmt: skip
TERNARY_OPERANDS = {Op.WHERE: 3, Op.LERP: 3, Op.CLAMP: 3, Op.THRESHOLD: 3, Op.ADDCMUL: 4}


def _check_operand_dtypes(op: Op, operands: list[Value]) -> None:
    for value in operands:
        cat = category(value.dtype)
        if op in INTEGER_ONLY and cat != INT:
            raise fail(op, f"needs integer operands, got {value.describe()}; cast it to Int first")
        if op in INTEGER_OR_BOOL_ONLY and cat > INT:
            raise fail(op, f"needs integer or Bool operands, got {value.describe()}; cast it to Int first")
        if op in REAL_ONLY and cat == COMPLEX:
            raise fail(op, f"is not defined for complex operands, got {value.describe()}")


def _elementwise_dtype(op: Op, operands: list[Value]) -> DataType:
    if op in BOOL_RESULT:
        return DataType.Bool
    is_tensor = any(v.is_tensor for v in operands)
    if op in (Op.WHERE, Op.THRESHOLD):
        data = operands[1:] if op is Op.WHERE else operands[:1]
        dtype = promote(op, data)
        if is_tensor and not any(v.is_tensor for v in data):
            # a tensor made from Python numbers alone gets torch's default dtypes
            dtype = {DataType.Double: DataType.Float, DataType.ComplexDouble: DataType.ComplexFloat}.get(
                dtype, dtype
            )
        return dtype
    base = promote(op, operands)
    if op in FLOAT_RESULT or op is Op.LERP:
        return floating(base, is_tensor)
    if op in (Op.REAL, Op.IMAG) or (op is Op.ABS and category(base) == COMPLEX):
        return real_dtype(base)
    if op in (Op.NEG, Op.SIGN) and base is DataType.Bool:
        raise fail(op, f"is not defined for Bool operands, got {operands[0].describe()}; use logical_not")
    return base


def _fold(op: Op, operands: list[Value], attrs: dict[str, Any], dtype: DataType) -> Any:
    if not operands or any(v.const is None for v in operands):
        return None
    from hfuse.reference import fold_constant

    return fold_constant(op, [(v.const, v.dtype) for v in operands], attrs, dtype)


def elementwise(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    family = op.family
    count = {Family.UNARY: 1, Family.BINARY: 2}.get(family) or TERNARY_OPERANDS[op]
    expect_arity(op, inputs, [count])
    check_attrs(op, attrs, [])
    _check_operand_dtypes(op, inputs)
    dtype = _elementwise_dtype(op, inputs)
    shape = broadcast_shapes(op, inputs)
    if shape is None:
        return Inferred({}, [scalar_out(dtype, _fold(op, inputs, {}, dtype))])
    return Inferred({}, [tensor_out(dtype, shape)])


def cast(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [1])
    check_attrs(op, attrs, ["dtype"])
    if "dtype" not in attrs:
        raise fail(op, "needs dtype=DataType.<type>")
    dtype = as_dtype(op, "dtype", attrs["dtype"])
    if dtype is DataType.Null:
        raise fail(op, "dtype DataType.Null is not a type to cast to; name one, e.g. DataType.Float")
    (x,) = inputs
    out = tensor_out(dtype, x.shape) if x.is_tensor else scalar_out(dtype, _fold(op, inputs, attrs, dtype))
    return Inferred({"dtype": dtype}, [out])


def full(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [1])
    check_attrs(op, attrs, ["shape", "dtype"])
    fill = expect_scalar(op, inputs[0], "fill_value")
    shape = as_int_tuple(op, "shape", attrs.get("shape", ()))
    if any(s < 0 for s in shape):
        raise fail(op, f"shape {list(shape)} has a negative extent; extents must be >= 0")
    dtype = as_dtype(op, "dtype", attrs.get("dtype", DataType.Null))
    if dtype is DataType.Null:
        dtype = fill.dtype
    return Inferred({"shape": shape, "dtype": dtype}, [tensor_out(dtype, shape)])


def iota(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    expect_arity(op, inputs, [0, 1, 2])
    check_attrs(op, attrs, ["length", "dtype"])
    for role, value in zip(("start", "step"), inputs, strict=False):
        expect_scalar(op, value, role)
    if "length" not in attrs:
        raise fail(op, "needs length=<whole number>")
    length = as_int(op, "length", attrs["length"])
    if length < 0:
        raise fail(op, f"length {length} is negative; it must be >= 0")
    dtype = as_dtype(op, "dtype", attrs.get("dtype", DataType.Int))
    if dtype is DataType.Null:
        dtype = DataType.Int
    if category(dtype) in (BOOL, COMPLEX):
        raise fail(op, f"dtype {dtype.name} is not allowed; use an integer or floating dtype")
    return Inferred({"length": length, "dtype": dtype}, [tensor_out(dtype, (length,))])


def _matmul_shape(op: Op, a: Value, b: Value) -> tuple[int, ...]:
    if a.rank == 0 or b.rank == 0:
        raise fail(op, f"operands must have rank >= 1, got {a.describe()} and {b.describe()}")
    a_shape = (1,) + a.shape if a.rank == 1 else a.shape
    b_shape = b.shape + (1,) if b.rank == 1 else b.shape
    if a_shape[-1] != b_shape[-2]:
        raise fail(
            op,
            f"inner extents differ: {a.describe()} has {a_shape[-1]} columns, {b.describe()} has "
            f"{b_shape[-2]} rows; they must be equal",
        )
    batch = broadcast_extents(op, [a_shape[:-2], b_shape[:-2]])
    shape = batch + ((a_shape[-2],) if a.rank > 1 else ()) + ((b_shape[-1],) if b.rank > 1 else ())
    return shape


def matmul(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    check_attrs(op, attrs, [])
    if op is Op.MATMUL:
        expect_arity(op, inputs, [2])
    else:
        expect_arity(op, inputs, [2, 3])
    a = expect_tensor(op, inputs[0], "the first operand")
    b = expect_tensor(op, inputs[1], "the second operand")
    for value in (a, b):
        if category(value.dtype) < FLOAT:
            raise fail(op, f"needs floating operands, got {value.describe()}; cast it to Float first")
    dtype = promote(op, [a, b])
    if op is Op.MATMUL:
        return Inferred({}, [tensor_out(dtype, _matmul_shape(op, a, b))])
    if a.rank == 0 or b.rank not in (1, 2):
        raise fail(
            op, f"needs input of rank >= 1 and weight of rank 1 or 2, got {a.describe()}, {b.describe()}"
        )
    if a.shape[-1] != b.shape[-1]:
        raise fail(
            op,
            f"in_features differ: input {a.describe()} and weight {b.describe()} must share the last extent",
        )
    shape = a.shape[:-1] + ((b.shape[0],) if b.rank == 2 else ())
    if len(inputs) == 3:
        bias = inputs[2]
        if bias.is_tensor and bias.rank > 1:
            raise fail(op, f"bias must have rank 0 or 1, got {bias.describe()}")
        shape = broadcast_extents(op, [shape, bias.shape])
    return Inferred({}, [tensor_out(dtype, shape)])


RULES: dict[Op, Rule] = {Op.FULL: full, Op.IOTA: iota, **VIEW_RULES, **REDUCTION_RULES, **INDEXING_RULES}
FAMILY_RULES: dict[Family, Rule] = {
    Family.UNARY: elementwise,
    Family.BINARY: elementwise,
    Family.TERNARY: elementwise,
    Family.CAST: cast,
    Family.MATMUL: matmul,
}


def _check_rank(op: Op, values: list[Value] | list[OutSpec]) -> None:
    limit = settings.MAX_RANK.as_int()
    for value in values:
        if len(value.shape) > limit:
            raise LimitError(
                f"{op.frontend_name}: a tensor of rank {len(value.shape)} exceeds the highest rank {limit}; "
                f"raise {settings.MAX_RANK.env} to allow it"
            )


def infer(op: Op, inputs: list[Value], attrs: dict[str, Any]) -> Inferred:
    """The normalized attributes and the output specs of `op` applied to `inputs`."""
    rule = RULES.get(op) or FAMILY_RULES.get(op.family)
    if rule is None:
        raise UnsupportedError(f"{op.frontend_name}: hfuse has no shape rule for this op yet")
    _check_rank(op, inputs)
    inferred = rule(op, list(inputs), dict(attrs))
    _check_rank(op, inferred.outputs)
    return inferred
