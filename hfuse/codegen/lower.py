"""Value-at-index lowering: any value of a group as a Triton expression of the current index tensors.

An `Index` names, for each dim of a value, the Triton expression of the position being computed,
plus the mask atoms under which those positions are valid. Movements transform an index backwards
(the layout algebra maps a result's index to each operand's; a pad reads its value and a cat its
other pieces where an operand's index falls outside it), indexing ops load an index tensor then
use it, creation ops compute (random ops as codegen/rng.py says), and elementwise ops are written by
their emitter from the op table.
Each (value, index) is lowered once per scope.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

import torch

from hfuse.codegen.code import Body
from hfuse.codegen.emit import (
    NEGATIVE_ZERO,
    common_tensor_type,
    compute_type,
    convert,
    literal,
    literal_as,
    power_by_constant,
    round_down,
    storage_type,
    to_type,
    widen,
)
from hfuse.codegen.indexing import INT32_LIMIT, SourceText, is_literal, is_plain, term
from hfuse.codegen.rng import lower_random
from hfuse.dtypes import DataType
from hfuse.errors import HfuseError, KernelError, UnsupportedError
from hfuse.ir import Expr, Fusion, Op, Value
from hfuse.layout import MOVEMENT_OPS, Movement, implicit_broadcast, movement_of, source_index
from hfuse.ops import Computed, Policy, Types, op_def, scalar_tensor


@dataclass(frozen=True, slots=True)
class Index:
    dims: tuple[str, ...]
    mask: frozenset[str] = frozenset()

    def with_dims(self, dims: Sequence[str]) -> Index:
        return Index(tuple(dims), self.mask)


class Reducer(Protocol):
    def reduce(self, lowering: Lowering, expr: Expr, index: Index) -> dict[str, str]: ...


def pointer(name: str) -> str:
    return f"{name.lower()}_ptr"


def describe(expr: Expr) -> str:
    """An expr as the fusion-definition call that made it, for comments."""
    args = list(expr.inputs) + [f"{k}={v!r}" for k, v in expr.attrs]
    return f"{', '.join(expr.outputs)} = fd.ops.{expr.op.frontend_name}({', '.join(args)})"


class Lowering:
    def __init__(
        self,
        fusion: Fusion,
        exprs: Sequence[Expr],
        loads: Collection[str],
        body: Body,
        *,
        wide_index: bool = False,
        reducer: Reducer | None = None,
        evict_first: Collection[str] = (),
    ) -> None:
        self.fusion = fusion
        self.values = fusion.value_map
        self.producers = {out: expr for expr in exprs for out in expr.outputs}
        self.loads = set(loads)
        self.evict_first = frozenset(evict_first)  # inputs read once here and by no later kernel
        self.body = body
        self.wide_index = wide_index
        self.reducer = reducer
        self.loaded: list[tuple[str, Index]] = []  # every global load, for layout probes
        # each test of a cat's or pad's position -> how a load tests it: its 0-d form where the program's
        # position alone decides it, else its name
        self.position_tests: dict[str, str] = {}
        self.positions = SourceText(self.assign)
        # positions that are one linear position's row-major digits: dims -> (that position, the shape,
        # the strides a value laid out in that order has)
        self.linear: dict[tuple[str, ...], tuple[str, tuple[int, ...], tuple[int, ...]]] = {}

    # ---- public ----------------------------------------------------------------------------
    def value(self, name: str, index: Index) -> str:
        value = self.values[name]
        if value.is_scalar and (value.const is not None or name not in self.producers or name in self.loads):
            return self.scalar(value)
        found = self._recall(name, index)
        if found is not None:
            return found
        if name in self.producers and name not in self.loads:
            self._lower_operands_first(name, index)
            expr = self.producers[name]
            results = self._lower(expr, name, index)
            valid = frozenset() if op_def(expr.op).reduces else index.mask
        else:
            results, valid = {name: self._load(value, index)}, index.mask
        for out, text in results.items():
            self._remember(out, index.dims, valid, text)
        return results[name]

    def scalar(self, value: Value) -> str:
        return literal(value.const) if value.const is not None else value.name

    def mask_text(self, mask: frozenset[str]) -> str | None:
        if not mask:
            return None
        return self.body.assign(" & ".join(sorted(mask)), "mask")

    def name_linear(
        self, dims: Sequence[str], linear: str, shape: Sequence[int], order: Sequence[int]
    ) -> None:
        """Says that `dims` are the digits of `linear` over `shape`, dims in `order` (outermost first)."""
        strides, inner = [0] * len(shape), 1
        for k in reversed(order):
            strides[k] = inner
            inner *= shape[k]
        self.linear[tuple(dims)] = (linear, tuple(shape), tuple(strides))

    def offset(self, value: Value, dims: Sequence[str]) -> str:
        known = self.linear.get(tuple(dims))
        if known is not None and laid_out_as(value, *known[1:]):
            # the linear position itself: Triton then sees contiguous, aligned addresses (vector accesses)
            return known[0]
        terms = []
        for dim, extent, stride in zip(dims, value.shape, value.strides, strict=True):
            if extent == 1 or stride == 0 or dim == "0":
                continue
            position = term(dim)
            if self.wide_index and (extent - 1) * abs(stride) > INT32_LIMIT and not is_literal(dim):
                position = f"{position}.to(tl.int64)"  # a tile's digits (aranges) stay int32 in a wide kernel
            terms.append(position if stride == 1 else f"{position} * {stride}")
        return " + ".join(terms) or "0"

    def store(self, name: str, index: Index, spread: str | None = None) -> None:
        """Writes `name` at `index`. `spread` is a position tensor whose shape the address takes when the
        value has a single element (a scalar pointer cannot take a block value)."""
        value = self.values[name]
        text = self.value(name, index)
        if value.dtype.is_reduced_float:
            text = round_down(text, value.dtype)
        offset = self.offset(value, index.dims)
        if spread is not None and not self.body.deps_of(offset):
            offset = f"{spread} * 0" if offset == "0" else f"{offset} + {spread} * 0"
        mask = self.mask_text(index.mask) if self.body.deps_of(offset) else None
        address = f"{pointer(name)} + {offset}" if offset != "0" else pointer(name)
        mask = self._block_mask(mask, offset)
        line = f"tl.store({address}, {text}" + (f", mask={mask})" if mask else ")")
        self.body.statement(line, self.body.scope_for(self.body.deps_of(line)))

    def _block_mask(self, mask: str | None, offset: str) -> str | None:
        """A mask that is one value for the whole program (a piece of a cat chosen by the program id) as
        a block of the offset's shape: Triton's interpreter takes no scalar mask on a block access, nor a
        broadcast one."""
        if mask is None or self.body.deps_of(mask):
            return mask
        return f"(({offset}) * 0 + {mask}.to(tl.int32) != 0)"

    def assign(self, text: str, hint: str, comment: str | None = None) -> str:
        return self.body.assign(text, hint, comment)

    # ---- memo ------------------------------------------------------------------------------
    def _recall(self, name: str, index: Index) -> str | None:
        for scope in self.body.open_scopes():
            for valid, text in scope.memo.get((name, index.dims), ()):
                if valid <= index.mask:
                    return text
        return None

    def _remember(self, name: str, dims: tuple[str, ...], valid: frozenset[str], text: str) -> None:
        scope = self.body.scope_for(self.body.deps_of(text) | self.body.deps_of(" ".join(dims)))
        scope.memo.setdefault((name, dims), []).append((valid, text))

    def _lower_operands_first(self, name: str, index: Index) -> None:
        """Lowers the chain of elementwise ops that `name` is computed from, deepest first (an iterative
        post-order), so that a long chain does not recurse once per op."""
        order: list[tuple[str, Index]] = []
        done: set[tuple[str, Index]] = set()
        stack: list[tuple[str, Index, bool]] = [(name, index, False)]
        while stack:
            at_name, at, operands_done = stack.pop()
            if operands_done:
                order.append((at_name, at))
                continue
            if (at_name, at) in done:
                continue
            done.add((at_name, at))
            stack.append((at_name, at, True))
            for operand, operand_at in self._elementwise_operands(at_name, at):
                if (operand, operand_at) not in done and self._recall(operand, operand_at) is None:
                    stack.append((operand, operand_at, False))
        for at_name, at in order[:-1]:  # the last is `name` itself
            self.value(at_name, at)

    def _elementwise_operands(self, name: str, index: Index) -> list[tuple[str, Index]]:
        """The tensor operands of `name` and where it reads them, when `name` is an elementwise op here."""
        expr = self.producers.get(name)
        if expr is None or name in self.loads or op_def(expr.op).emitter is None:
            return []
        shape = self.values[name].shape
        operands = [self.values[k] for k in expr.inputs]
        return [(v.name, self._broadcast_index(v, index, shape)) for v in operands if v.is_tensor]

    # ---- loads -----------------------------------------------------------------------------
    def _load(self, value: Value, index: Index) -> str:
        if not value.is_tensor:
            raise KernelError(f"{value.name} is a scalar computed outside this kernel and not passed to it")
        if not value.numel:
            # No element to read: whatever reads it is masked off or pad (a load, even at offset 0, would
            # read past the tensor; an empty tensor's address is null)
            text = f"tl.full([], 0, {storage_type(value.dtype)})"
            if value.dtype.is_reduced_float:
                text = widen(text, value.dtype)
            return self.body.assign(text, value.name.lower())
        offset = self.offset(value, index.dims)
        if not self.body.deps_of(offset):
            offset = self._inside_or_first(index, offset)
        address = f"{pointer(value.name)} + {offset}" if offset != "0" else pointer(value.name)
        mask = self._block_mask(self.mask_text(self._guarding(index.mask, offset)), offset)
        hint = ", eviction_policy='evict_first'" if value.name in self.evict_first else ""
        text = f"tl.load({address}, mask={mask}, other=0{hint})" if mask else f"tl.load({address}{hint})"
        if value.dtype.is_reduced_float:
            text = widen(text, value.dtype)
        self.loaded.append((value.name, index))
        return self.body.assign(text, value.name.lower())

    def _guarding(self, mask: frozenset[str], offset: str) -> frozenset[str]:
        """The tests of `mask` that can keep a load at `offset` inside its tensor: none when no block axis
        moves the address, else those along an axis the address moves with, and those that are one value
        for the whole program. A test along another axis alone (the column mask, for a value read once
        per row) would make the address a block of the same element, loaded once per lane."""
        axes = self.body.deps_of(offset)
        if not axes:
            return frozenset()
        return frozenset(test for test in mask if not (along := self.body.deps_of(test)) or along & axes)

    def _inside_or_first(self, index: Index, offset: str) -> str:
        """A load whose address no block axis moves (a row's first element, an input expanded along the
        tile) reads the tensor's first element where its position lies outside the tensor (in another
        piece of a cat, or a pad's fill): that value is not used, and the address stays inside the
        tensor. Where a test depends on a block axis, the address becomes a block."""
        tests = [self.position_tests[c] for c in sorted(index.mask) if c in self.position_tests]
        if not tests or offset == "0":
            return offset
        return self.assign(f"tl.where({' & '.join(tests)}, {offset}, 0)", "at")

    # ---- dispatch --------------------------------------------------------------------------
    def _lower(self, expr: Expr, name: str, index: Index) -> dict[str, str]:
        try:
            definition = op_def(expr.op)
            if definition.emitter is not None:
                return {name: self._elementwise(expr, index)}
            if definition.reduces:
                if self.reducer is None:
                    raise UnsupportedError(
                        "a reduction can only be generated in a reduction or normalization kernel"
                    )
                return self.reducer.reduce(self, expr, index)
            handler = HANDLERS.get(expr.op)
            if handler is None:
                raise UnsupportedError(
                    f"fd.ops.{expr.op.frontend_name} is not generated as Triton; "
                    "it must run in a torch segment"
                )
            return {name: handler(self, expr, index)}
        except (UnsupportedError, KernelError) as err:
            if err.expr is not None:  # already names the innermost expr
                raise
            raise type(err)(err.reason, loc=err.loc, expr=describe(expr)) from err
        except HfuseError:
            raise
        except Exception as err:  # an emitter bug: say which expr it was generating
            reason = f"the emitter failed: {type(err).__name__}: {err}"
            raise KernelError(reason, expr=describe(expr)) from err

    def _input(self, expr: Expr, k: int) -> Value:
        return self.values[expr.inputs[k]]

    def _out(self, expr: Expr) -> Value:
        return self.values[expr.outputs[0]]

    def _operand(self, value: Value, index: Index, out_shape: Sequence[int]) -> str:
        if value.is_scalar:
            return self.value(value.name, index)
        return self.value(value.name, self._broadcast_index(value, index, out_shape))

    def _broadcast_index(self, value: Value, index: Index, out_shape: Sequence[int]) -> Index:
        """The index of a tensor operand that an elementwise result of `out_shape` broadcasts."""
        dims, _ = source_index(implicit_broadcast(value.shape, out_shape), index.dims, self.positions)
        return index.with_dims(dims)

    def _view_comment(self, expr: Expr, index: Index) -> None:
        self.body.comment(describe(expr), self.body.scope_for(self.body.deps_of(" ".join(index.dims))))

    # ---- elementwise -----------------------------------------------------------------------
    def _elementwise(self, expr: Expr, index: Index) -> str:
        out = self._out(expr)
        operands = [self._input(expr, k) for k in range(len(expr.inputs))]
        texts = [self._operand(v, index, out.shape) for v in operands]
        definition = op_def(expr.op)
        policy, emit = definition.policy, definition.emitter
        if expr.op is Op.POW and out.dtype.is_float and operands[1].const is not None:
            base = convert(texts[0], operands[0].dtype, out.dtype) if operands[0].is_tensor else texts[0]
            short = power_by_constant(base, operands[1].const)
            if short is not None:
                return self.assign(_in_own_type(short, out.dtype), out.name.lower(), describe(expr))
        tensors = [v.dtype for v in operands if v.is_tensor]
        if policy in (Policy.TO_OUTPUT, Policy.HELD_BY_OUTPUT):
            targets = [out.dtype] * len(operands)
        elif policy is Policy.PROMOTE:
            targets = (
                [_with_scalars(common_tensor_type(tensors), operands)] * len(operands)
                if tensors
                else [v.dtype for v in operands]
            )
        elif policy is Policy.WHERE:
            targets = [operands[0].dtype] + [out.dtype] * (len(operands) - 1)
        elif expr.op in _TRUTH_OF_PROMOTED and tensors:  # torch tests a scalar in the tensors' type
            common = _with_scalars(common_tensor_type(tensors), operands)
            targets = [v.dtype if v.is_tensor else common for v in operands]
        else:
            targets = [v.dtype for v in operands]
        texts = [
            _held_by(text, v, target)
            if policy is Policy.HELD_BY_OUTPUT
            else _tensor_operand(text, v.dtype, target, policy)
            if v.is_tensor
            else self._scalar_as(v, text, target)
            for text, v, target in zip(texts, operands, targets, strict=True)
        ]
        text = emit(texts, Types(out.dtype, tuple(targets)))
        blocks = [t for t, v in zip(texts, operands, strict=True) if v.is_tensor]
        cast_scalars = expr.op in _TRUTH_OF_PROMOTED and any(
            t.startswith("tl.cast(") for t, v in zip(texts, operands, strict=True) if v.is_scalar
        )  # a 0-d value tested against 0: the interpreter would take the test for a float
        scalars_as_blocks = _HELPER_CALL.search(text) or NEGATIVE_ZERO in texts or cast_scalars
        if scalars_as_blocks and blocks and not all(v.is_tensor for v in operands):
            typed = zip(texts, operands, targets, strict=True)
            texts = [_as_block(t, v, target, blocks[0]) for t, v, target in typed]
            text = emit(texts, Types(out.dtype, tuple(targets)))
        if policy in (Policy.PROMOTE, Policy.KEEP) and out.dtype is not DataType.Bool:
            text = to_type(text, compute_type(out.dtype))
        return self.assign(_in_own_type(text, out.dtype), out.name.lower(), describe(expr))

    def _scalar_as(self, value: Value, text: str, target: DataType) -> str:
        """A scalar operand in the type the op computes in, as torch's CUDA kernels convert a scalar: a
        float one straight to the op's math type (1e300 meets a Float or Half tensor as the float32 inf,
        -1e-300 as -0.0; a Double one keeps it), an integer one at its own value beside a float tensor
        (-inf + 2**40 in Half stays -inf), wrapped into an integer one's type."""
        const = value.const
        if const is not None:
            whole = isinstance(const, int) and not isinstance(const, bool)
            if (whole and target.is_float) or (isinstance(const, float) and target is DataType.Double):
                return text
            held = DataType.Float if target.is_reduced_float else target
            return literal_as(_python_cast(const, held), target)
        if value.dtype is DataType.Double and target.is_float and target is not DataType.Double:
            return f"tl.cast({text}, tl.float32)"
        if target is DataType.Bool and value.dtype is not DataType.Bool:
            return f"({text} != 0)"
        if target is DataType.Int32 and value.dtype is not DataType.Int32:  # an Int argument wraps
            return f"tl.cast({text}, tl.int32)"
        if value.dtype is DataType.Bool and target is not DataType.Bool:  # int1 mixes with no other type
            return f"tl.cast({text}, {compute_type(target)})"
        return text

    def _cast(self, expr: Expr, index: Index) -> str:
        source, out = self._input(expr, 0), self._out(expr)
        if source.is_scalar and source.const is not None:
            return literal_as(_python_cast(source.const, out.dtype), out.dtype)
        text = self._operand(source, index, out.shape)
        if source.is_scalar:
            cast = _in_own_type(f"tl.cast({text}, {compute_type(out.dtype)})", out.dtype)
            return self.assign(cast, out.name.lower(), describe(expr))
        return self.assign(convert(text, source.dtype, out.dtype), out.name.lower(), describe(expr))

    # ---- movements ------------------------------------------------------------------------
    def _moved(self, move: Movement, index: Index) -> tuple[Index, str | None]:
        """The operand index that `move` reads at `index`, and the name of the condition under which it
        lies inside the operand (None where it always does)."""
        dims, inside = source_index(move, index.dims, self.positions)
        named = tuple(d if is_plain(d) else self.assign(d, "ix") for d in dims)
        if not inside:
            return Index(named, index.mask), None
        # a test of the program's own position is a 0-d value, whose & with a block the interpreter takes
        # for no bool in a load's mask: each such test is made a block
        parts = [
            f"(tl.full([1], 1, tl.int1) & {part})"
            if _NAMED.search(part) and not self.body.deps_of(part)
            else part
            for part in inside
        ]
        condition = self.assign(" & ".join(parts), "inside")
        program_only = not any(self.body.deps_of(part) for part in inside)
        self.position_tests[condition] = " & ".join(f"({p})" for p in inside) if program_only else condition
        return Index(named, index.mask | {condition}), condition

    def _movement(self, expr: Expr, index: Index) -> str:
        """Each operand read at the index the layout algebra maps `index` to. Where that index falls outside
        the operand, a pad reads its value and a cat its other pieces."""
        out = self._out(expr)
        self._view_comment(expr, index)
        tensors = [name for name in expr.inputs if self.values[name].is_tensor]
        moves = movement_of(expr, self.values)
        text, condition = None, None
        for name, move in reversed(list(zip(tensors, moves, strict=True))):  # the last piece of a cat first
            if len(moves) > 1 and not math.prod(move.source):
                continue
            at, condition = self._moved(move, index)
            piece = self.value(name, at)
            if self.values[name].dtype is not out.dtype:
                piece = convert(piece, self.values[name].dtype, out.dtype)
            text = piece if text is None else f"tl.where({condition}, {piece}, {text})"
        if expr.op is Op.PAD and condition is not None:
            fill = "0"
            if len(expr.inputs) > 1:
                fill = self._scalar_as(self._input(expr, 1), self.value(expr.inputs[1], index), out.dtype)
            text = _in_own_type(f"tl.where({condition}, {text}, {fill})", out.dtype)
        return self.assign(text, out.name.lower(), describe(expr))

    # ---- creation, masks, indexing ---------------------------------------------------------
    def _full(self, expr: Expr, index: Index) -> str:
        fill, out = self._input(expr, 0), self._out(expr)
        if fill.const is not None:
            return literal_as(_python_cast(fill.const, out.dtype), out.dtype)
        filled = _in_own_type(f"tl.cast({fill.name}, {compute_type(out.dtype)})", out.dtype)
        return self.assign(filled, out.name.lower(), describe(expr))

    def _iota(self, expr: Expr, index: Index) -> str:
        out = self._out(expr)
        start = self.value(expr.inputs[0], index) if len(expr.inputs) > 0 else "0"
        step = self.value(expr.inputs[1], index) if len(expr.inputs) > 1 else "1"
        position = index.dims[0]
        if not is_literal(position):
            position = f"{position}.to({compute_type(out.dtype)})"
        return self.assign(f"{start} + {position} * {step}", out.name.lower(), describe(expr))

    def _random(self, expr: Expr, index: Index) -> str:
        return lower_random(self, expr, index, describe(expr))

    def _triu(self, expr: Expr, index: Index) -> str:
        row, col = index.dims[-2], index.dims[-1]
        value = self.value(expr.inputs[0], index)
        keep = self.assign(f"{term(col)} - {term(row)} >= {expr.attr('diagonal')}", "keep")
        return self.assign(f"tl.where({keep}, {value}, 0)", self._out(expr).name.lower(), describe(expr))

    def _through(self, expr: Expr, index: Index, dims: Sequence[str]) -> str:
        """The operand of an indexing op read at `dims`."""
        self._view_comment(expr, index)
        named = [d if is_plain(d) else self.assign(d, "ix") for d in dims]
        return self.value(expr.inputs[0], index.with_dims(named))

    def _loaded_position(self, name: str, index: Index) -> str:
        position = self.value(name, index)
        if self.wide_index and self.values[name].dtype is not DataType.Int:
            position = self.assign(f"{position}.to(tl.int64)", "pos")
        return position

    def _index_select(self, expr: Expr, index: Index) -> str:
        axis = expr.attr("dim")
        dims = list(index.dims)
        positions = (index.dims[axis],) if self._input(expr, 1).rank else ()  # a 0-D index: one position
        dims[axis] = self._loaded_position(expr.inputs[1], index.with_dims(positions))
        return self._through(expr, index, dims)

    def _select(self, expr: Expr, index: Index) -> str:
        axis = expr.attr("dim")
        position = self.value(expr.inputs[1], index)
        return self._through(expr, index, [*index.dims[:axis], position, *index.dims[axis:]])

    def _gather(self, expr: Expr, index: Index) -> str:
        source, positions, out = self._input(expr, 0), self._input(expr, 1), self._out(expr)
        axis = expr.attr("dim")
        loaded = self._loaded_position(positions.name, self._broadcast_index(positions, index, out.shape))
        dims = ["0" if source.shape[k] == 1 else index.dims[k] for k in range(source.rank)]
        dims[axis] = loaded
        return self._through(expr, index, dims)


_HELPER_CALL = re.compile(r"(?<![.\w])_[a-z0-9_]+\(")


def laid_out_as(value: Value, shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    return value.shape == shape and all(
        extent == 1 or got == want for extent, got, want in zip(shape, value.strides, strides, strict=True)
    )


def _as_block(text: str, value: Value, target: DataType, block: str) -> str:
    """A scalar operand of a math helper, or of an op with a -0.0 constant, as a block of the shape of
    `block`: a helper reads bits and the signs of zeros, which a Python number does not have, and the
    interpreter mishandles 0-d blocks (a comparison of one broadcasts as a float). A float constant of a
    Double op keeps the value Triton gives a number in an expression (a float32 where it lies in float32's
    range: 1e30 is float32's 1e30), which the reference gives it too; of a float32 op it is already
    float32's (`_scalar_as`)."""
    if value.is_tensor or target is DataType.Bool:
        return text
    if isinstance(value.const, float) and target is DataType.Double:
        text = literal(scalar_tensor(value.const, value.dtype, torch.device("cpu")).item())
    return f"tl.full({block}.shape, {text}, {compute_type(target)})"


def _in_own_type(text: str, dtype: DataType) -> str:
    """A result of a 16-bit or 8-bit float type, computed in fp32, rounded to its type (as torch rounds
    every op's result), so that a consumer of another type reads the value torch would."""
    return widen(round_down(text, dtype), dtype) if dtype.is_reduced_float else text


_INT_OPERAND_IN = {DataType.Half: "_int_operand_in_half", DataType.BFloat16: "_int_operand_in_bfloat16"}


def _held_by(text: str, value: Value, target: DataType) -> str:
    """An operand converted to `target` as a value of that type holds it (a Half rounds a constant to its
    own precision), in `target`'s compute type."""
    if value.const is not None:
        return literal_as(_python_cast(value.const, target), target)
    if value.is_scalar:  # a kernel argument: the interpreter passes a Python number, which has no .to
        text = f"tl.cast({text}, {compute_type(value.dtype)})"
    return convert(text, value.dtype, target)


def _tensor_operand(text: str, source: DataType, target: DataType, policy: Policy) -> str:
    """A tensor operand converted to the type the op computes in; an integer one beside a 16-bit float
    tensor in arithmetic as torch's kernels on that device convert it (`_int_operand_in_half`)."""
    if source.is_int and target in _INT_OPERAND_IN and policy in (Policy.PROMOTE, Policy.TO_OUTPUT):
        return f"{_INT_OPERAND_IN[target]}({text})"
    return convert(text, source, target)


_NAMED = re.compile(r"[A-Za-z_]")  # a name in an index expression (the rest are numbers)

# ops that test their operands' truth after torch's type promotion: -1e-300 beside a Float tensor is the
# float32 0 (false), 2**40 beside an Int32 one wraps to 0
_TRUTH_OF_PROMOTED = (Op.LOGICAL_AND, Op.LOGICAL_OR)


def _with_scalars(common: DataType, operands: Sequence[Value]) -> DataType:
    """The tensors' common type, raised as torch raises it for a scalar of a higher category
    (bool < int < float): a Bool tensor compared with -7 compares integers, an Int32 one with 0.5 doubles
    (the reference's scalars are 0-dim tensors of their own type)."""
    scalars = [v.dtype for v in operands if v.is_scalar]
    if not common.is_float and any(d.is_float for d in scalars):
        return DataType.Double if DataType.Double in scalars else DataType.Float
    if common is DataType.Bool and any(d.is_int for d in scalars):
        return DataType.Int
    return common


def _python_cast(value: bool | int | float, dtype: DataType) -> bool | int | float:
    if dtype is DataType.Bool:
        return bool(value)
    if dtype.is_int:  # an integer out of the type's range wraps, as torch converts it
        bits = 32 if dtype is DataType.Int32 else 64
        whole = int(value) if math.isfinite(value) else 0
        return (whole + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)
    if dtype.is_reduced_float or dtype is DataType.Float:  # the constant as torch holds it in that type
        return torch.tensor(float(value), dtype=torch.float64).to(dtype.torch).item()
    if dtype.is_float:
        return float(value)
    raise UnsupportedError(f"a constant of DataType.{dtype.name} cannot be generated")


# how each op that is neither elementwise with an emitter nor a reduction is lowered at an index
HANDLERS = {
    Op.CAST: Lowering._cast,
    **{op: Lowering._movement for op in MOVEMENT_OPS if op_def(op).computed is Computed.BY_LOWERING},
    Op.FULL: Lowering._full,
    Op.IOTA: Lowering._iota,
    Op.UNIFORM: Lowering._random,
    Op.NORMAL: Lowering._random,
    Op.TRIU: Lowering._triu,
    Op.INDEX_SELECT: Lowering._index_select,
    Op.SELECT: Lowering._select,
    Op.GATHER: Lowering._gather,
    Op.TAKE_ALONG_AXIS: Lowering._gather,
}
