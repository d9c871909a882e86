"""The layout algebra against torch: each movement op's result shape, its index map (checked at every
result position), the operand elements a result reads, and the strides of the views torch can make."""

from __future__ import annotations

import itertools
import math
import random

import pytest
import torch
import torch.nn.functional as F

from hfuse.dtypes import DataType
from hfuse.ir import Kind, Op, Value
from hfuse.layout import (
    Along,
    Drop,
    Movement,
    New,
    Numbers,
    Regroup,
    View,
    has_stride_order,
    implicit_broadcast,
    innermost_dim,
    is_identity,
    linked_dims,
    memory_order,
    movement,
    read_mask,
    reads_every_element,
    regroup,
    reshaped_strides,
    source_index,
    strides_for,
    view_after,
)
from hfuse.ops import infer

FILL = -1.0  # what a pad reads outside its operand


def _pad(widths):
    return lambda x: F.pad(x, widths, value=FILL)


# (id, op, normalized attrs, operand shapes, the same movement in torch); elementwise cases use op None
CASES = [
    ("set", Op.SET, {}, [(3, 4)], lambda x: x),
    ("stride_order", Op.STRIDE_ORDER, {"stride_order": (0, 1)}, [(3, 4)], lambda x: x),
    ("permute", Op.PERMUTE, {"dims": (2, 0, 1)}, [(2, 3, 4)], lambda x: x.permute(2, 0, 1)),
    ("permute_extent_one", Op.PERMUTE, {"dims": (1, 2, 0)}, [(1, 3, 1)], lambda x: x.permute(1, 2, 0)),
    ("squeeze", Op.SQUEEZE, {"dims": (1, 3)}, [(2, 1, 3, 1)], lambda x: x.squeeze((1, 3))),
    ("squeeze_to_scalar", Op.SQUEEZE, {"dims": (0,)}, [(1,)], lambda x: x.squeeze(0)),
    (
        "broadcast",
        Op.BROADCAST,
        {"is_broadcast_dim": (True, False, True, False)},
        [(2, 3)],
        lambda x: x[None, :, None, :],
    ),
    (
        "broadcast_in_dim_new_dims",
        Op.BROADCAST_IN_DIM,
        {"shape": (2, 3, 4), "broadcast_dims": (1,)},
        [(3,)],
        lambda x: x[None, :, None].expand(2, 3, 4),
    ),
    (
        "broadcast_in_dim_stretch",
        Op.BROADCAST_IN_DIM,
        {"shape": (4, 3, 5), "broadcast_dims": (0, 1)},
        [(1, 3)],
        lambda x: x[:, :, None].expand(4, 3, 5),
    ),
    ("expand", Op.EXPAND, {"shape": (2, 4, 3)}, [(2, 1, 3)], lambda x: x.expand(2, 4, 3)),
    ("expand_keeps_one", Op.EXPAND, {"shape": (3, 1)}, [(1, 1)], lambda x: x.expand(3, 1)),
    ("reshape_merge", Op.RESHAPE, {"new_shape": (6, 4)}, [(2, 3, 4)], lambda x: x.reshape(6, 4)),
    ("reshape_split", Op.RESHAPE, {"new_shape": (2, 2, 6)}, [(4, 6)], lambda x: x.reshape(2, 2, 6)),
    ("reshape_across", Op.RESHAPE, {"new_shape": (4, 3, 2)}, [(2, 3, 4)], lambda x: x.reshape(4, 3, 2)),
    ("reshape_ones", Op.RESHAPE, {"new_shape": (1, 2, 1, 3, 1)}, [(6,)], lambda x: x.reshape(1, 2, 1, 3, 1)),
    ("reshape_drop_ones", Op.RESHAPE, {"new_shape": (3, 2)}, [(2, 1, 3)], lambda x: x.reshape(3, 2)),
    ("reshape_empty", Op.RESHAPE, {"new_shape": (3, 0)}, [(0, 3)], lambda x: x.reshape(3, 0)),
    (
        "slice",
        Op.SLICE,
        {"starts": (1, 2), "ends": (4, 6), "strides": (1, 1)},
        [(5, 6)],
        lambda x: x[1:4, 2:6],
    ),
    (
        "slice_strided",
        Op.SLICE,
        {"starts": (1, 0), "ends": (5, 6), "strides": (2, 3)},
        [(5, 6)],
        lambda x: x[1:5:2, 0:6:3],
    ),
    (
        "slice_empty",
        Op.SLICE,
        {"starts": (0, 4), "ends": (3, 4), "strides": (1, 1)},
        [(3, 4)],
        lambda x: x[:, 4:4],
    ),
    ("pad_last_dim", Op.PAD, {"pad_widths": (1, 2)}, [(3, 4)], _pad((1, 2))),
    ("pad_crop_and_grow", Op.PAD, {"pad_widths": (1, -2, 2, 0)}, [(3, 4)], _pad((1, -2, 2, 0))),
    ("pad_crop_only", Op.PAD, {"pad_widths": (-1, -1)}, [(3, 4)], _pad((-1, -1))),
    ("pad_extent_one", Op.PAD, {"pad_widths": (0, 0, 2, 1)}, [(1, 3)], _pad((0, 0, 2, 1))),
    ("cat_inner", Op.CAT, {"dim": 1}, [(2, 3), (2, 1), (2, 2)], lambda *xs: torch.cat(xs, 1)),
    ("cat_outer", Op.CAT, {"dim": 0}, [(1, 3), (2, 3)], lambda *xs: torch.cat(xs, 0)),
    ("cat_empty_piece", Op.CAT, {"dim": 1}, [(2, 0), (2, 3)], lambda *xs: torch.cat(xs, 1)),
    ("cat_one_piece", Op.CAT, {"dim": 0}, [(2, 3)], lambda *xs: torch.cat(xs, 0)),
    ("elementwise_same", None, {"shape": (3, 4)}, [(3, 4)], lambda x: x),
    ("elementwise_broadcast", None, {"shape": (2, 3, 4)}, [(3, 1)], lambda x: x.expand(2, 3, 4)),
]
IDS = [case[0] for case in CASES]
NOT_INFERRED = {"slice_strided"}  # inference refuses slice steps other than 1


def _movements(op, attrs, shapes) -> tuple[Movement, ...]:
    if op is None:
        return (implicit_broadcast(shapes[0], attrs["shape"]),)
    return movement(op, attrs, shapes)


def _operands(shapes) -> list[torch.Tensor]:
    """Operands whose elements are all different, across operands too."""
    return [
        torch.arange(math.prod(s), dtype=torch.float64).reshape(s) + 1000 * k for k, s in enumerate(shapes)
    ]


@pytest.mark.parametrize(("name", "op", "attrs", "shapes", "torch_fn"), CASES, ids=IDS)
def test_result_shape_is_torchs_and_inference_gives_it(name, op, attrs, shapes, torch_fn):
    expected = tuple(torch_fn(*_operands(shapes)).shape)
    assert all(move.result == expected for move in _movements(op, attrs, shapes))
    if op is not None and name not in NOT_INFERRED:
        operands = [Value(f"t{k}", Kind.TENSOR, DataType.Double, tuple(s)) for k, s in enumerate(shapes)]
        if op is Op.PAD:
            operands.append(Value("fill", Kind.SCALAR, DataType.Double, const=FILL))
        inferred = infer(op, operands, dict(attrs))
        assert inferred.outputs[0].shape == expected
        assert movement(op, inferred.attrs, shapes) == movement(op, attrs, shapes)


@pytest.mark.parametrize(("name", "op", "attrs", "shapes", "torch_fn"), CASES, ids=IDS)
def test_every_result_position_reads_the_operand_element_torch_puts_there(name, op, attrs, shapes, torch_fn):
    operands = _operands(shapes)
    result = torch_fn(*operands)
    moves = _movements(op, attrs, shapes)
    for position in itertools.product(*(range(n) for n in result.shape)):
        reads = []
        for operand, move in zip(operands, moves, strict=True):
            dims, inside = source_index(move, position, Numbers())
            if all(inside):
                reads.append(operand[tuple(dims)].item())
        expected = result[position].item()
        assert reads == ([] if expected == FILL else [expected]), f"at {position}"


@pytest.mark.parametrize(("name", "op", "attrs", "shapes", "torch_fn"), CASES, ids=IDS)
def test_the_read_mask_is_what_torch_differentiates_through(name, op, attrs, shapes, torch_fn):
    generator = torch.Generator().manual_seed(0)
    moves = _movements(op, attrs, shapes)
    result_shape = moves[0].result
    for needed in [torch.ones(result_shape, dtype=torch.bool)] + [
        torch.rand(result_shape, generator=generator) < 0.3 for _ in range(3)
    ]:
        operands = [x.requires_grad_() for x in _operands(shapes)]
        (torch_fn(*operands) * needed).sum().backward()
        for operand, move in zip(operands, moves, strict=True):
            read = operand.grad != 0 if operand.grad is not None else torch.zeros(operand.shape, dtype=bool)
            assert torch.equal(read_mask(move, needed), read)
    if math.prod(result_shape):
        everything = torch.ones(result_shape, dtype=torch.bool)
        for move in moves:
            assert reads_every_element(move) is bool(read_mask(move, everything).all())


def _layouts(shape) -> list[tuple[str, tuple[int, ...], int]]:
    """(name, strides, storage size) of a few layouts of `shape`: row-major, column-major, and every
    other element of a larger row-major buffer with a gap between rows."""
    rank = len(shape)
    dense = strides_for(shape)
    gapped = tuple(2 * s * (3 if d < rank - 1 else 1) for d, s in enumerate(dense))
    column_major = strides_for(shape, tuple(range(rank)))
    layouts = [("row_major", dense), ("column_major", column_major), ("gapped", gapped)]
    return [(n, s, 1 + sum((e - 1) * st for e, st in zip(shape, s, strict=True))) for n, s in layouts]


VIEWABLE = [case for case in CASES if case[1] not in (None, Op.PAD, Op.CAT)]


@pytest.mark.parametrize(
    ("name", "op", "attrs", "shapes", "torch_fn"), VIEWABLE, ids=[c[0] for c in VIEWABLE]
)
def test_views_have_torchs_offset_and_strides_and_reshapes_that_must_copy_are_refused(
    name, op, attrs, shapes, torch_fn
):
    (move,) = movement(op, attrs, shapes)
    for layout, strides, size in _layouts(shapes[0]):
        storage = torch.arange(max(size, 1) + 5, dtype=torch.float64)
        base = storage.as_strided(shapes[0], strides, 5)
        view = view_after(move, View(5, tuple(shapes[0]), strides))
        if op is Op.RESHAPE:
            try:
                expected = base.view(attrs["new_shape"])
            except RuntimeError:
                assert view is None, layout
                continue
        else:
            expected = torch_fn(base)
        assert view is not None, layout
        assert view.shape == tuple(expected.shape)
        assert torch.equal(storage.as_strided(view.shape, view.strides, view.offset), expected), layout
        if math.prod(view.shape):
            assert view.offset == expected.storage_offset(), layout
        walked = [d for d, n in enumerate(view.shape) if n > 1 or op is Op.RESHAPE]
        assert [view.strides[d] for d in walked] == [expected.stride(d) for d in walked], layout


@pytest.mark.parametrize(
    ("widths", "shape", "is_view"),
    [((1, 2), (3, 4), False), ((-1, -1), (3, 4), True), ((0, 0, 2, 1), (1, 3), False)],
    ids=["margins", "crop", "margins_of_extent_one"],
)
def test_a_pad_is_a_view_only_where_it_crops(widths, shape, is_view):
    (move,) = movement(Op.PAD, {"pad_widths": widths}, [shape])
    view = view_after(move, View(0, shape, strides_for(shape)))
    assert (view is not None) == is_view
    if is_view:
        storage = torch.arange(math.prod(shape), dtype=torch.float64)
        viewed = storage.as_strided(view.shape, view.strides, view.offset)
        assert torch.equal(viewed, _pad(widths)(storage.view(shape)))


def test_a_piece_of_a_cat_is_not_a_view_of_the_result():
    moves = movement(Op.CAT, {"dim": 1}, [(2, 3), (2, 1)])
    assert [view_after(m, View(0, m.source, strides_for(m.source))) for m in moves] == [None, None]


def _random_reshapes(count: int) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """(shape, strides, new shape): strides of permuted, gapped or odd extent-1 layouts; new shapes that
    split, merge, and move extent-1 dims."""
    rng = random.Random(10)
    cases = []
    while len(cases) < count:
        shape = tuple(rng.choice((1, 1, 2, 3, 4)) for _ in range(rng.randint(1, 4)))
        order = list(range(len(shape)))
        rng.shuffle(order)
        strides = list(strides_for(shape, order))
        for d in range(len(shape)):
            if rng.random() < 0.25:
                strides[d] *= rng.choice((2, 3))
            if shape[d] == 1 and rng.random() < 0.5:
                strides[d] = rng.choice((1, 5, 99))
        factors = [f for n in shape for f in _factors(n)]
        rng.shuffle(factors)
        new_shape = []
        for f in factors:
            if new_shape and rng.random() < 0.4:
                new_shape[-1] *= f
            else:
                new_shape.append(f)
            if rng.random() < 0.2:
                new_shape.append(1)
        cases.append((shape, tuple(strides), tuple(new_shape) or (1,)))
    return cases


def _factors(n: int) -> list[int]:
    return {1: [], 2: [2], 3: [3], 4: [2, 2]}[n]


@pytest.mark.parametrize(("shape", "strides", "new_shape"), _random_reshapes(300))
def test_reshaped_strides_are_torchs_view_strides_or_none_where_torch_copies(shape, strides, new_shape):
    base = torch.empty_strided(shape, strides)
    try:
        expected = base.view(new_shape).stride()
    except RuntimeError:
        expected = None
    assert reshaped_strides(shape, strides, new_shape) == expected


@pytest.mark.parametrize(
    ("shape", "new_shape", "runs"),
    [
        ((2, 3, 4), (6, 4), [((0, 1), (0,)), ((2,), (1,))]),
        ((2, 3, 4), (4, 3, 2), [((0, 1, 2), (0, 1, 2))]),
        ((2, 1, 3), (2, 3, 1), [((0,), (0,)), ((1, 2), (1,)), ((), (2,))]),
        ((6,), (1, 2, 3), [((0,), (0, 1, 2))]),
        ((0, 3), (3, 0), [((0, 1), (0, 1))]),
    ],
    ids=["merge", "across", "extent_one", "leading_one", "empty"],
)
def test_a_reshape_is_the_shortest_runs_with_equal_products(shape, new_shape, runs):
    assert regroup(shape, new_shape) == tuple(Regroup(s, r) for s, r in runs)


@pytest.mark.parametrize(
    ("op", "attrs", "shapes", "links"),
    [
        (Op.PERMUTE, {"dims": (2, 0, 1)}, [(2, 3, 4)], [(2, 0), (0, 1), (1, 2)]),
        (Op.RESHAPE, {"new_shape": (2, 12)}, [(2, 3, 4)], [(0, 0)]),
        (Op.RESHAPE, {"new_shape": (3, 2, 1, 4)}, [(3, 2, 4)], [(0, 0), (1, 1), (2, 3)]),
        (Op.BROADCAST_IN_DIM, {"shape": (5, 3, 4), "broadcast_dims": (1, 2)}, [(1, 4)], [(1, 2)]),
        (Op.SQUEEZE, {"dims": (0,)}, [(1, 3)], [(1, 0)]),
        (Op.SLICE, {"starts": (0, 1), "ends": (2, 3), "strides": (1, 1)}, [(2, 4)], [(0, 0), (1, 1)]),
        (None, {"shape": (2, 3, 4)}, [(3, 1)], [(0, 1)]),
    ],
    ids=["permute", "reshape_merge", "reshape_whole_dims", "broadcast", "squeeze", "slice", "elementwise"],
)
def test_linked_dims_are_the_dims_a_result_walks(op, attrs, shapes, links):
    (move,) = _movements(op, attrs, shapes)
    assert linked_dims(move) == links


@pytest.mark.parametrize(
    ("op", "attrs", "shape", "identity"),
    [
        (Op.PERMUTE, {"dims": (0, 1)}, (2, 2), True),
        (Op.PERMUTE, {"dims": (1, 0)}, (2, 2), False),
        (Op.RESHAPE, {"new_shape": (2, 1, 3)}, (2, 1, 3), True),
        (Op.SLICE, {"starts": (0, 0), "ends": (2, 3), "strides": (1, 1)}, (2, 3), True),
        (Op.PAD, {"pad_widths": (1, -1)}, (2, 3), False),
        (Op.PAD, {"pad_widths": (0, 0)}, (2, 3), True),
        (Op.EXPAND, {"shape": (2, 3)}, (2, 3), True),
    ],
    ids=[
        "identity_permute",
        "transpose",
        "same_reshape",
        "full_slice",
        "shift_pad",
        "zero_pad",
        "same_expand",
    ],
)
def test_identity_movements(op, attrs, shape, identity):
    (move,) = movement(op, attrs, [shape])
    assert is_identity(move) is identity


def test_broadcast_runs_say_which_dims_are_new_and_which_stretch():
    (move,) = movement(Op.BROADCAST_IN_DIM, {"shape": (4, 3, 5), "broadcast_dims": (0, 1)}, [(1, 3)])
    assert set(move.runs) == {New(2), Drop(0), New(0), Along(1, 1)}


@pytest.mark.parametrize(
    ("shape", "strides", "inner", "order"),
    [
        ((4, 6), (6, 1), 1, [0, 1]),
        ((4, 6), (1, 4), 0, [1, 0]),
        ((4, 1, 6), (6, 6, 1), 2, [0, 1, 2]),
        ((4, 6), (0, 1), 1, [1, 0]),
        ((4, 6), (1, 0), 0, [0, 1]),
        ((1, 1), (1, 1), None, [0, 1]),
    ],
    ids=["row_major", "column_major", "extent_one", "expanded_rows", "expanded_columns", "one_element"],
)
def test_innermost_dim_and_memory_order(shape, strides, inner, order):
    assert innermost_dim(shape, strides) == inner
    assert memory_order(shape, strides) == order


@pytest.mark.parametrize(
    ("shape", "strides", "order", "holds"),
    [
        ((4, 6), (6, 1), (1, 0), True),
        ((4, 6), (6, 1), (0, 1), False),
        ((4, 1, 6), (1, 99, 4), (0, 2, 1), True),
    ],
    ids=["row_major", "transposed", "extent_one_ignored"],
)
def test_has_stride_order(shape, strides, order, holds):
    assert has_stride_order(shape, strides, order) is holds
