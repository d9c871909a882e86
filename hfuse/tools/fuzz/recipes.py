"""Random valid fusions for the fuzzing campaign: a DAG of frontend calls, valid by construction.

`fusion_recipes()` draws the calls while it tracks each value's shape and dtype kind (so every op
gets operands it accepts), and `build_definition` replays a recipe through `FusionDefinition`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from hfuse.dtypes import DataType
from hfuse.frontend import FusionDefinition
from hfuse.tools.fuzz.strategies import Draw

FLOAT_DTYPES = (DataType.Float, DataType.Double, DataType.Half, DataType.BFloat16)
INPUT_DTYPES = (*FLOAT_DTYPES, DataType.Int, DataType.Int32, DataType.Bool)
FLOAT_UNARY = ("abs", "neg", "exp", "sin", "tanh", "sigmoid", "relu", "ceil", "floor", "log1p", "sqrt")
NUMERIC_BINARY = ("add", "sub", "mul", "maximum", "minimum")
COMPARISONS = ("eq", "ne", "lt", "gt", "le", "ge")
REDUCTIONS = ("sum", "max", "min")


@dataclass(frozen=True, slots=True)
class Ref:
    """A value made by an earlier step of a recipe (its index in the recipe's pool)."""

    index: int


@dataclass(frozen=True, slots=True)
class Step:
    """One frontend call: `fd.<method>(...)` or `fd.ops.<method>(...)`; its results join the pool."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()
    results: int = 1

    def __str__(self) -> str:
        shown = [_show(a) for a in self.args] + [f"{k}={_show(v)}" for k, v in self.kwargs]
        return f"{self.method}({', '.join(shown)})"


def _show(value: Any) -> str:
    if isinstance(value, Ref):
        return f"v{value.index}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return repr(value)


@dataclass(frozen=True, slots=True)
class Tracked:
    """What the recipe generator knows of a pool value: its shape and dtype category."""

    shape: tuple[int, ...]
    kind: str  # "float", "int" or "bool"


def _kind(dtype: DataType) -> str:
    if dtype is DataType.Bool:
        return "bool"
    return "int" if dtype.is_int else "float"


@dataclass
class Recipe:
    steps: list[Step]
    pool: list[Tracked]
    outputs: list[int]

    def __str__(self) -> str:
        return "; ".join(str(s) for s in self.steps) + f"; outputs {self.outputs}"


def _add(recipe: Recipe, step: Step, *made: Tracked) -> None:
    recipe.steps.append(step)
    recipe.pool.extend(made)


def _draw_input(draw: Draw, recipe: Recipe) -> None:
    rank = draw(st.integers(0, 3))
    shape = [
        draw(st.integers(0, 5) if draw(st.integers(0, 9)) == 0 else st.integers(1, 5)) for _ in range(rank)
    ]
    dtype = draw(st.sampled_from(INPUT_DTYPES))
    step = Step("define_tensor", kwargs=(("shape", shape), ("contiguity", True), ("dtype", dtype)))
    _add(recipe, step, Tracked(tuple(shape), _kind(dtype)))


def _as_float(recipe: Recipe, index: int) -> int:
    if recipe.pool[index].kind == "float":
        return index
    _add(recipe, Step("ops.cast", (Ref(index), DataType.Float)), Tracked(recipe.pool[index].shape, "float"))
    return len(recipe.pool) - 1


def _draw_op(draw: Draw, recipe: Recipe) -> None:
    index = draw(st.integers(0, len(recipe.pool) - 1))
    x = recipe.pool[index]
    rank = len(x.shape)
    same = [i for i, v in enumerate(recipe.pool) if v.shape == x.shape and i != index]
    choices = ["unary", "scalar", "cast", "compare"]
    if same:
        choices += ["binary", "where"]
    if rank:
        choices += ["reduce", "permute", "flatten", "slice", "pad", "cat", "cumsum", "broadcast", "var_mean"]
    if 1 in x.shape:
        choices += ["squeeze", "expand"]
    kind = draw(st.sampled_from(choices))
    if kind == "unary":
        source = _as_float(recipe, index) if x.kind != "float" else index
        _add(
            recipe,
            Step(f"ops.{draw(st.sampled_from(FLOAT_UNARY))}", (Ref(source),)),
            Tracked(x.shape, "float"),
        )
    elif kind == "scalar":
        source = _as_float(recipe, index) if x.kind == "bool" else index
        constant = draw(st.sampled_from((0.5, -2.0, 3, 0)))
        result = "float" if isinstance(constant, float) else recipe.pool[source].kind
        op = draw(st.sampled_from(NUMERIC_BINARY))
        _add(recipe, Step(f"ops.{op}", (Ref(source), constant)), Tracked(x.shape, result))
    elif kind == "cast":
        dtype = draw(st.sampled_from(INPUT_DTYPES))
        _add(recipe, Step("ops.cast", (Ref(index), dtype)), Tracked(x.shape, _kind(dtype)))
    elif kind == "compare":
        op = draw(st.sampled_from(COMPARISONS))
        _add(recipe, Step(f"ops.{op}", (Ref(index), 1)), Tracked(x.shape, "bool"))
    elif kind == "binary":
        a, b = _as_float(recipe, index), _as_float(recipe, draw(st.sampled_from(same)))
        _add(
            recipe,
            Step(f"ops.{draw(st.sampled_from(NUMERIC_BINARY))}", (Ref(a), Ref(b))),
            Tracked(x.shape, "float"),
        )
    elif kind == "where":
        condition = len(recipe.pool)
        _add(recipe, Step("ops.gt", (Ref(index), 0)), Tracked(x.shape, "bool"))
        a, b = _as_float(recipe, index), _as_float(recipe, draw(st.sampled_from(same)))
        _add(recipe, Step("ops.where", (Ref(condition), Ref(a), Ref(b))), Tracked(x.shape, "float"))
    else:
        _draw_shape_op(draw, recipe, index, kind)


def _draw_shape_op(draw: Draw, recipe: Recipe, index: int, kind: str) -> None:
    x = recipe.pool[index]
    rank = len(x.shape)
    dim = draw(st.integers(0, rank - 1)) if rank else 0
    if kind == "reduce":
        source = _as_float(recipe, index)
        reduced = set(draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank)))
        dims = [d - rank if draw(st.booleans()) else d for d in sorted(reduced)]
        keepdim = draw(st.booleans())
        shape = tuple(1 if i in reduced else n for i, n in enumerate(x.shape) if keepdim or i not in reduced)
        op = draw(st.sampled_from(REDUCTIONS)) if all(x.shape) else "sum"
        step = Step(f"ops.{op}", (Ref(source),), (("dims", dims), ("keepdim", keepdim)))
        _add(recipe, step, Tracked(shape, "float"))
    elif kind == "var_mean":
        source = _as_float(recipe, index)
        shape = tuple(n for i, n in enumerate(x.shape) if i != dim)
        step = Step("ops.var_mean", (Ref(source),), (("dims", [dim]), ("correction", 0)), results=2)
        _add(recipe, step, Tracked(shape, "float"), Tracked(shape, "float"))
    elif kind == "permute":
        order = draw(st.permutations(range(rank)))
        _add(
            recipe,
            Step("ops.permute", (Ref(index), list(order))),
            Tracked(tuple(x.shape[d] for d in order), x.kind),
        )
    elif kind == "flatten":
        _add(
            recipe,
            Step("ops.reshape", (Ref(index), [math.prod(x.shape)])),
            Tracked((math.prod(x.shape),), x.kind),
        )
    elif kind == "slice":
        starts = [draw(st.integers(0, n)) for n in x.shape]
        ends = [draw(st.integers(s, n)) for s, n in zip(starts, x.shape, strict=True)]
        shape = tuple(e - s for s, e in zip(starts, ends, strict=True))
        _add(recipe, Step("ops.slice", (Ref(index), starts, ends)), Tracked(shape, x.kind))
    elif kind == "pad":
        widths = [draw(st.integers(0, 2)) for _ in range(2 * draw(st.integers(1, rank)))]
        shape = list(x.shape)
        for i in range(len(widths) // 2):
            shape[rank - 1 - i] += widths[2 * i] + widths[2 * i + 1]
        source = _as_float(recipe, index) if x.kind == "bool" else index
        _add(recipe, Step("ops.pad", (Ref(source), widths)), Tracked(tuple(shape), recipe.pool[source].kind))
    elif kind == "cat":
        shape = tuple(2 * n if i == dim else n for i, n in enumerate(x.shape))
        _add(recipe, Step("ops.cat", ([Ref(index), Ref(index)], dim)), Tracked(shape, x.kind))
    elif kind == "cumsum":
        source = _as_float(recipe, index)
        _add(recipe, Step("ops.cumsum", (Ref(source), dim)), Tracked(x.shape, "float"))
    elif kind == "broadcast":
        extent = draw(st.integers(1, 3))
        where = draw(st.integers(0, rank))
        shape = (*x.shape[:where], extent, *x.shape[where:])
        kept = [d for d in range(rank + 1) if d != where]
        step = Step("ops.broadcast_in_dim", (Ref(index),), (("shape", list(shape)), ("broadcast_dims", kept)))
        _add(recipe, step, Tracked(shape, x.kind))
    elif kind == "squeeze":
        dims = [d for d, n in enumerate(x.shape) if n == 1]
        _add(
            recipe,
            Step("ops.squeeze", (Ref(index), dims)),
            Tracked(tuple(n for n in x.shape if n != 1), x.kind),
        )
    elif kind == "expand":
        shape = tuple(draw(st.integers(1, 3)) if n == 1 else n for n in x.shape)
        _add(recipe, Step("ops.expand", (Ref(index), list(shape))), Tracked(shape, x.kind))


@st.composite
def fusion_recipes(draw: Draw) -> Recipe:
    recipe = Recipe([], [], [])
    for _ in range(draw(st.integers(1, 3))):
        _draw_input(draw, recipe)
    inputs = len(recipe.pool)
    for _ in range(draw(st.integers(1, 8))):
        _draw_op(draw, recipe)
    made = list(range(inputs, len(recipe.pool)))
    recipe.outputs = sorted(set(draw(st.lists(st.sampled_from(made), min_size=1, max_size=3))))
    return recipe


def build_definition(recipe: Recipe) -> FusionDefinition:
    """Replays a recipe through the frontend API."""
    with FusionDefinition() as fd:
        pool: list[Any] = []

        def resolve(value: Any) -> Any:
            if isinstance(value, Ref):
                return pool[value.index]
            if isinstance(value, list):
                return [resolve(v) for v in value]
            return value

        for step in recipe.steps:
            owner = fd.ops if step.method.startswith("ops.") else fd
            method = getattr(owner, step.method.removeprefix("ops."))
            made = method(*[resolve(a) for a in step.args], **{k: resolve(v) for k, v in step.kwargs})
            pool.extend(made if step.results > 1 else [made])
        for index in recipe.outputs:
            fd.add_output(pool[index])
    return fd
