"""The Python that real fusion scripts use, read by hfuse.load: each construct against a straight-line twin.

Every case is a script using one construct and a hand-written script without it that defines the
same fusion; the two load to equal Fusions. Inputs lists are compared with torch making the same
tensors, and what scripts print is kept as their output.
"""

import re
import textwrap

import pytest
import torch

from hfuse import DefinitionError, ParseError, load

HEADER = "import torch\nfrom nvfuser import FusionDefinition, DataType\n"


def _script(*body: str, before: str = "") -> str:
    """A script whose definition block holds the `body` parts, with `before` written above it."""
    block = "".join(textwrap.dedent(part) for part in body)
    return (
        HEADER + textwrap.dedent(before) + "with FusionDefinition() as fd:\n" + textwrap.indent(block, "    ")
    )


X = "x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)\n"
Y = "y = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)\n"

# (id, script, straight-line twin)
CONSTRUCTS = [
    (
        "function-positional-parameters",
        _script(
            X + Y + "fd.add_output(rope(fd, x, y, y))\n",
            before="""\
            def rope(fd, x, cos, sin):
                return fd.ops.add(fd.ops.mul(x, cos), fd.ops.mul(fd.ops.neg(x), sin))
            """,
        ),
        _script(X + Y + "fd.add_output(fd.ops.add(fd.ops.mul(x, y), fd.ops.mul(fd.ops.neg(x), y)))\n"),
    ),
    (
        "function-keyword-and-default-parameters",
        _script(
            X + "fd.add_output(scale(fd, x, bias=1.0))\nfd.add_output(scale(fd, factor=3.0, x=x))\n",
            before="""\
            def scale(fd, x, factor=2.0, *, bias=0.0):
                return x * factor + bias
            """,
        ),
        _script(X + "fd.add_output(x * 2.0 + 1.0)\nfd.add_output(x * 3.0 + 0.0)\n"),
    ),
    (
        "function-called-with-inputs-keyword",
        HEADER
        + textwrap.dedent("""\
            def fusion_func(fd, inputs):
                t0 = fd.from_pytorch(inputs[0])
                fd.add_output(fd.ops.relu(t0))

            inputs = [torch.randn(4, 6, device="cuda")]
            with FusionDefinition() as fd:
                fusion_func(fd, inputs=inputs)
            """),
        _script(X + "fd.add_output(fd.ops.relu(x))\n"),
    ),
    (
        "star-args-and-star-kwargs",
        _script(
            X + Y + "fd.add_output(total(fd, x, y, x, dims=[1]))\n",
            before="""\
            def total(fd, first, *rest, **options):
                for t in rest:
                    first = fd.ops.add(first, t)
                return fd.ops.sum(first, **options)
            """,
        ),
        _script(X + Y + "fd.add_output(fd.ops.sum(fd.ops.add(fd.ops.add(x, y), x), dims=[1]))\n"),
    ),
    (
        "return-tuple-and-unpack",
        _script(
            X + "q, k, v = split3(fd, x)\nfd.add_output(k)\nfd.add_output(v)\nfd.add_output(q)\n",
            before="""\
            def split3(fd, t):
                parts = [fd.ops.slice(t, [0, 2 * i], [4, 2 * i + 2]) for i in range(3)]
                return parts[0], parts[1], parts[2]
            """,
        ),
        _script(
            X
            + "q = fd.ops.slice(x, [0, 0], [4, 2])\nk = fd.ops.slice(x, [0, 2], [4, 4])\n"
            + "v = fd.ops.slice(x, [0, 4], [4, 6])\nfd.add_output(k)\nfd.add_output(v)\nfd.add_output(q)\n"
        ),
    ),
    (
        "nested-function-and-closure",
        _script(
            X,
            """\
            def block(t):
                def activation(u):
                    return fd.ops.mul(u, fd.ops.sigmoid(u)) if use_silu else fd.ops.relu(u)
                return activation(fd.ops.add(t, bias))
            use_silu, bias = True, 0.5
            fd.add_output(block(x))
            use_silu = False
            fd.add_output(block(x))
            """,
        ),
        _script(
            X,
            """\
            a = fd.ops.add(x, 0.5)
            fd.add_output(fd.ops.mul(a, fd.ops.sigmoid(a)))
            fd.add_output(fd.ops.relu(fd.ops.add(x, 0.5)))
            """,
        ),
    ),
    (
        "recursion",
        _script(
            X + "fd.add_output(chain(x, 3))\n",
            before="""\
            def chain(t, n):
                return t if n == 0 else chain(fd.ops.exp(t), n - 1)
            """,
        ),
        _script(X + "fd.add_output(fd.ops.exp(fd.ops.exp(fd.ops.exp(x))))\n"),
    ),
    (
        "for-over-range-list-tuple",
        _script(
            X,
            """\
            for i in range(2):
                x = x + i
            for c in [2.0, 3.0]:
                x = x * c
            for d in (1,):
                fd.add_output(fd.ops.sum(x, dims=[d]))
            """,
        ),
        _script(
            X + "x = x + 0\nx = x + 1\nx = x * 2.0\nx = x * 3.0\nfd.add_output(fd.ops.sum(x, dims=[1]))\n"
        ),
    ),
    (
        "for-over-enumerate-zip-and-items",
        _script(
            X,
            Y,
            """\
            for i, (a, b) in enumerate(zip([x, y], [y, x])):
                fd.add_output(fd.ops.add(a, b) * i)
            for name, dims in {"rows": [1], "cols": [0]}.items():
                fd.add_output(fd.ops.sum(x, dims=dims))
            """,
        ),
        _script(
            X,
            Y,
            """\
            fd.add_output(fd.ops.add(x, y) * 0)
            fd.add_output(fd.ops.add(y, x) * 1)
            fd.add_output(fd.ops.sum(x, dims=[1]))
            fd.add_output(fd.ops.sum(x, dims=[0]))
            """,
        ),
    ),
    (
        "while-with-break-and-continue",
        _script(
            X,
            """\
            n = 0
            while True:
                n += 1
                if n % 2 == 0:
                    continue
                if n > 5:
                    break
                x = fd.ops.neg(x)
            fd.add_output(x)
            """,
        ),
        _script(X + "x = fd.ops.neg(x)\nx = fd.ops.neg(x)\nx = fd.ops.neg(x)\nfd.add_output(x)\n"),
    ),
    (
        "if-elif-else-and-conditional-expression",
        _script(
            X,
            """\
            for mode in ["relu", "tanh", "other"]:
                if mode == "relu":
                    out = fd.ops.relu(x)
                elif mode == "tanh":
                    out = fd.ops.tanh(x)
                else:
                    out = fd.ops.exp(x) if len(mode) > 3 else x
                fd.add_output(out)
            """,
        ),
        _script(
            X + "fd.add_output(fd.ops.relu(x))\nfd.add_output(fd.ops.tanh(x))\nfd.add_output(fd.ops.exp(x))\n"
        ),
    ),
    (
        "containers-indexing-and-slicing",
        _script("""\
            shape = [2, 3, 4, 5]
            config = {"dtype": DataType.Half, "dims": (0, -1)}
            t = fd.define_tensor(shape=shape[:2] + shape[-2:][::-1], contiguity=True, dtype=config["dtype"])
            fd.add_output(fd.ops.sum(t, dims=list(config["dims"])))
            """),
        _script("""\
            t = fd.define_tensor(shape=[2, 3, 5, 4], contiguity=True, dtype=DataType.Half)
            fd.add_output(fd.ops.sum(t, dims=[0, -1]))
            """),
    ),
    (
        "comprehensions",
        _script("""\
            ts = [fd.define_tensor(shape=[n, 2], contiguity=True) for n in range(1, 4) if n != 2]
            by_rows = {t.ndim * 10 + i: t for i, t in enumerate(ts)}
            fd.add_output(fd.ops.cat(tuple(t for t in by_rows.values()), dim=0))
            fd.add_output(fd.ops.cat([fd.ops.neg(t) for row in [[ts[0]], [ts[1]]] for t in row], dim=0))
            """),
        _script("""\
            a = fd.define_tensor(shape=[1, 2], contiguity=True)
            b = fd.define_tensor(shape=[3, 2], contiguity=True)
            fd.add_output(fd.ops.cat((a, b), dim=0))
            fd.add_output(fd.ops.cat([fd.ops.neg(a), fd.ops.neg(b)], dim=0))
            """),
    ),
    (
        "list-methods",
        _script(
            X,
            """\
            outs = [x]
            outs.append(fd.ops.exp(x))
            outs.extend([fd.ops.neg(x), fd.ops.abs(x)])
            outs.insert(0, fd.ops.relu(x))
            last = outs.pop()
            outs.pop(1)
            for t in outs + [last]:
                fd.add_output(t)
            """,
        ),
        _script(
            X,
            """\
            e = fd.ops.exp(x)
            n = fd.ops.neg(x)
            a = fd.ops.abs(x)
            r = fd.ops.relu(x)
            fd.add_output(r)
            fd.add_output(e)
            fd.add_output(n)
            fd.add_output(a)
            """,
        ),
    ),
    (
        "scalar-arithmetic-comparisons-and-boolean-ops",
        _script(
            X,
            """\
            hidden, heads = 6, 3
            d = hidden // heads + hidden % 4 - 2 ** 2 + abs(-7) // 2
            scale = 1 / (d ** 0.5) if 0 < d <= 8 and not d == 5 or False else 1.0
            fd.add_output(x * scale * (-d))
            """,
        ),
        _script(X + "fd.add_output(x * (1 / 3 ** 0.5) * -3)\n"),
    ),
    (
        "augmented-assignment",
        _script(
            X,
            """\
            shape = [4, 6]
            shape[0] *= 2
            n = 1
            n += 2
            n **= 2
            x += n
            x *= 0.5
            fd.add_output(fd.ops.broadcast_in_dim(x, shape=[shape[0] // 2, shape[1]], broadcast_dims=[0, 1]))
            """,
        ),
        _script(
            X
            + "x = x + 9\nx = x * 0.5\n"
            + "fd.add_output(fd.ops.broadcast_in_dim(x, shape=[4, 6], broadcast_dims=[0, 1]))\n"
        ),
    ),
    (
        "nested-and-starred-unpacking",
        _script(
            X,
            """\
            (a, b), *rest, last = [(x, -x), 1, 2, 3]
            first, *middle = [b, a]
            fd.add_output(first * len(rest) + last)
            fd.add_output(middle[0])
            """,
        ),
        _script(X + "b = -x\nfd.add_output(b * 2 + 3)\nfd.add_output(x)\n"),
    ),
    (
        "builtins",
        _script(
            X,
            """\
            sizes = sorted([6, 4], reverse=False)
            assert list(reversed(sizes)) == [6, 4] and tuple(sizes) == (4, 6)
            assert isinstance(sizes, list) and isinstance(2.0, (int, float)) and not isinstance(x, int)
            assert bool([]) is False and int("3" == "3") == 1 and float(2) == 2.0
            total = sum(s for s in sizes) + max(sizes) + min(1, 2) + len(dict(a=1, b=2))
            fd.add_output(x * total)
            """,
        ),
        _script(X + "fd.add_output(x * 19)\n"),
    ),
    (
        "math-module",
        _script(
            X + "fd.add_output(x * (math.sqrt(16) + pi / math.pi + math.prod([2, 3]) + sqrt(4.0)))\n",
            before="""\
            import math
            from math import pi, sqrt
            """,
        ),
        _script(X + "fd.add_output(x * 13.0)\n"),
    ),
    (
        "functools-partial-and-reduce",
        _script(
            X,
            Y,
            """\
            sum_rows = partial(fd.ops.sum, dims=[1])
            add_all = functools.partial(functools.reduce, fd.ops.add)
            fd.add_output(sum_rows(add_all([x, y, x])))
            """,
            before="import functools\nfrom functools import partial\n",
        ),
        _script(X + Y + "fd.add_output(fd.ops.sum(fd.ops.add(fd.ops.add(x, y), x), dims=[1]))\n"),
    ),
    (
        "itertools-product-and-chain",
        _script(
            X,
            Y,
            """\
            for a, b in itertools.product([x, y], repeat=2):
                fd.add_output(fd.ops.mul(a, b))
            for t in chain([x], (y,)):
                fd.add_output(fd.ops.neg(t))
            """,
            before="import itertools\nfrom itertools import chain\n",
        ),
        _script(
            X,
            Y,
            """\
            for a, b in [(x, x), (x, y), (y, x), (y, y)]:
                fd.add_output(fd.ops.mul(a, b))
            fd.add_output(fd.ops.neg(x))
            fd.add_output(fd.ops.neg(y))
            """,
        ),
    ),
    (
        "itertools-permutations-and-combinations",
        _script(
            X,
            """\
            for order in itertools.permutations(range(2)):
                fd.add_output(fd.ops.permute(x, dims=order))
            for a, b in combinations([x, fd.ops.neg(x), fd.ops.abs(x)], r=2):
                fd.add_output(fd.ops.add(a, b))
            """,
            before="import itertools\nfrom itertools import combinations\n",
        ),
        _script(
            X,
            """\
            fd.add_output(fd.ops.permute(x, dims=(0, 1)))
            fd.add_output(fd.ops.permute(x, dims=(1, 0)))
            n, a = fd.ops.neg(x), fd.ops.abs(x)
            fd.add_output(fd.ops.add(x, n))
            fd.add_output(fd.ops.add(x, a))
            fd.add_output(fd.ops.add(n, a))
            """,
        ),
    ),
    (
        "is-tensor-of-fusion-values",
        _script(
            X,
            """\
            s = fd.define_scalar(2.0, dtype=DataType.Double)
            for a in [x, s]:
                t = fd.ops.mul(a, a)
                if t.is_tensor():
                    fd.add_output(t)
            """,
        ),
        _script(
            X,
            """\
            s = fd.define_scalar(2.0, dtype=DataType.Double)
            fd.add_output(fd.ops.mul(x, x))
            fd.ops.mul(s, s)
            """,
        ),
    ),
    (
        "shape-property-of-2023-and-scalar-op-methods",
        _script(
            X,
            """\
            rows, cols = x.shape
            half = fd.define_scalar(0.5)
            fd.add_output(fd.ops.mul(x, cols))
            fd.add_output(fd.ops.add(x, half.neg()))
            fd.add_output(fd.ops.reshape(x, x.shape()))
            """,
        ),
        _script(
            X,
            """\
            rows, cols = fd.ops.size(x, 0), fd.ops.size(x, 1)
            half = fd.define_scalar(0.5)
            fd.add_output(fd.ops.mul(x, cols))
            fd.add_output(fd.ops.add(x, fd.ops.neg(half)))
            fd.add_output(fd.ops.reshape(x, fd.ops.shape(x)))
            """,
        ),
    ),
    (
        "direct-tensorview-and-val-annotations",
        HEADER.replace("nvfuser import", "nvfuser_direct import")
        + "from nvfuser_direct import TensorView, Val\n"
        + textwrap.dedent("""\
            def scale(fd: FusionDefinition, x: TensorView, s: Val) -> TensorView:
                assert isinstance(x, TensorView) and isinstance(s, Val) and not isinstance(s, TensorView)
                return fd.ops.mul(x, s)

            with FusionDefinition() as fd:
                x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)
                fd.add_output(scale(fd, x, fd.define_scalar(2.0, dtype=DataType.Double)))
            """),
        _script(X, "fd.add_output(fd.ops.mul(x, fd.define_scalar(2.0, dtype=DataType.Double)))\n"),
    ),
    (
        "walrus-and-list-remove",
        _script(
            X,
            """\
            dims = [0, 1, 2]
            dims.remove(2)
            sums = [s for d in dims if (s := fd.ops.sum(x, dims=[d])) is not None]
            fd.add_output(s)
            fd.add_output(sums[0])
            """,
        ),
        _script(
            X,
            """\
            a = fd.ops.sum(x, dims=[0])
            b = fd.ops.sum(x, dims=[1])
            fd.add_output(b)
            fd.add_output(a)
            """,
        ),
    ),
    (
        "nvfuser-tensor-type-typing-and-pytorch-utils",
        _script(
            X,
            """\
            def scaled(fd: FusionDefinition, t: Tensor, factors: List[float]) -> Optional[Tensor]:
                return fd.ops.mul(t, factors[0]) if isinstance(t, Tensor) else None
            s = fd.define_scalar(2.0)
            assert isinstance(s, Scalar) and not isinstance(s, Tensor)
            half = torch_dtype_to_nvfuser_dtype(torch.float16)
            fd.add_output(fd.ops.cast(scaled(fd, x, [2.0]), dtype=half))
            """,
            before="""\
            from typing import List, Optional
            from nvfuser import Scalar, Tensor
            from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype
            """,
        ),
        _script(
            X,
            """\
            s = fd.define_scalar(2.0)
            fd.add_output(fd.ops.cast(fd.ops.mul(x, 2.0), dtype=DataType.Half))
            """,
        ),
    ),
    (
        "subclass-with-helper-methods-and-class-attributes",
        HEADER
        + textwrap.dedent("""\
            class Block(FusionDefinition):
                shape = [4, 6]
                eps = 1e-5

                def norm(self, t):
                    return self.ops.mul(t, self.ops.rsqrt(self.ops.add(self.square(t), self.eps)))

                def square(self, t):
                    return self.ops.mul(t, t)

                def definition(self):
                    self.x = self.define_tensor(shape=self.shape, contiguity=True, dtype=DataType.Float)
                    self.add_output(self.norm(self.x))

            fd = Block()
            """),
        _script(X + "fd.add_output(fd.ops.mul(x, fd.ops.rsqrt(fd.ops.add(fd.ops.mul(x, x), 1e-5))))\n"),
    ),
    (
        "tensor-shape-size-and-ndim",
        _script(
            X,
            """\
            s = x.shape()
            n = x.size(1)
            fd.add_output(fd.ops.reshape(x, [s[0], n, x.ndim // 2]))
            """,
        ),
        _script(
            X,
            """\
            s = fd.ops.shape(x)
            n = fd.ops.size(x, 1)
            fd.add_output(fd.ops.reshape(x, [fd.ops.at(s, 0), n, 1]))
            """,
        ),
    ),
    (
        "inputs-shape-and-ndim",
        HEADER
        + textwrap.dedent("""\
            inputs = [torch.randn(4, 6, device="cuda")]
            with FusionDefinition() as fd:
                shape = inputs[0].shape
                x = fd.define_tensor(shape=[-1] * inputs[0].ndim, contiguity=True)
                row = fd.ops.sum(x, dims=[1])
                fd.add_output(fd.ops.broadcast_in_dim(row, shape=list(shape), broadcast_dims=[0]))
            """),
        HEADER
        + textwrap.dedent("""\
            inputs = [torch.randn(4, 6, device="cuda")]
            with FusionDefinition() as fd:
                x = fd.define_tensor(shape=[-1, -1], contiguity=True)
                row = fd.ops.sum(x, dims=[1])
                fd.add_output(fd.ops.broadcast_in_dim(row, shape=[4, 6], broadcast_dims=[0]))
            """),
    ),
]

# classes of a script's settings: dataclasses, enums, plain classes
SETTINGS_CLASSES = """\
from dataclasses import dataclass, field
import dataclasses
from enum import Enum, IntEnum, auto


@dataclass(frozen=True)
class Config:
    \"\"\"The model's sizes.\"\"\"

    scale: float
    bias: float = 1.0
    dims: list = field(default_factory=list)

    def shifted(self, by):
        return self.bias + by


@dataclasses.dataclass
class Counter:
    n: int = 0


class Direction(Enum):
    INCOMING = auto()
    OUTGOING = auto()


class Axis(IntEnum):
    ROW = 0
    COLUMN = 1


class Scaler:
    factor = 2.0

    def __init__(self, offset, twice=False):
        self.offset = offset
        self.twice = twice

    def apply(self, t):
        return t * (self.factor * 2 if self.twice else self.factor) + self.offset
"""
CONSTRUCTS += [
    (
        "dataclass-fields-defaults-and-methods",
        _script(
            X + "if config == Config(3.0, dims=[1]) and config.dims == [1]:\n"
            "    fd.add_output(x * config.scale + config.shifted(2.0))\n",
            before=SETTINGS_CLASSES + "config = Config(scale=3.0, dims=[1])\n",
        ),
        _script(X + "fd.add_output(x * 3.0 + 3.0)\n"),
    ),
    (
        "dataclass-attribute-write",
        _script(
            X + "counter = Counter()\nfor i in range(3):\n    counter.n += 1\nfd.add_output(x * counter.n)\n",
            before=SETTINGS_CLASSES,
        ),
        _script(X + "fd.add_output(x * 3)\n"),
    ),
    (
        "enum-members",
        _script(
            X + "for d in Direction:\n"
            "    if d == Direction.OUTGOING and d is not Direction.INCOMING and d in [Direction.OUTGOING]:\n"
            "        fd.add_output(fd.ops.sum(x, dims=[{Direction.INCOMING: 0, Direction.OUTGOING: 1}[d]]))\n"
            "fd.add_output(x * Direction(2).value)\n"
            "fd.add_output(fd.ops.sum(x, dims=[Axis.COLUMN.value]))\n"
            "assert Axis.ROW == 0 and Direction.INCOMING.name == 'INCOMING'\n",
            before=SETTINGS_CLASSES,
        ),
        _script(
            X + "fd.add_output(fd.ops.sum(x, dims=[1]))\nfd.add_output(x * 2)\n",
            "fd.add_output(fd.ops.sum(x, dims=[1]))\n",
        ),
    ),
    (
        "plain-class-with-init-and-methods",
        _script(
            X + "fd.add_output(Scaler(1.0).apply(x))\nfd.add_output(Scaler(0.5, twice=True).apply(x))\n",
            before=SETTINGS_CLASSES,
        ),
        _script(X + "fd.add_output(x * 2.0 + 1.0)\nfd.add_output(x * 4.0 + 0.5)\n"),
    ),
    (
        "tensor-dtype-method",
        HEADER.replace("nvfuser", "nvfuser_direct")
        + textwrap.dedent("""\
            with FusionDefinition() as fd:
                x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.BFloat16)
                io_dtype = x.dtype()
                y = fd.ops.cast(x, dtype=DataType.Float)
                fd.add_output(fd.ops.cast(fd.ops.exp(y), dtype=io_dtype))
            """),
        HEADER
        + textwrap.dedent("""\
            with FusionDefinition() as fd:
                x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.BFloat16)
                y = fd.ops.cast(x, dtype=DataType.Float)
                fd.add_output(fd.ops.cast(fd.ops.exp(y), dtype=DataType.BFloat16))
            """),
    ),
]

# lines that set up a test's or a repro's process: passed over, nothing imported, called or set
PROCESS_SET_UP = """\
import os
import random
import pytest
import numpy as np
import torch.nn.functional as F
os.environ["NVFUSER_DUMP"] = "python_definition"
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
random.seed(0)
np.random.seed(0)
torch.backends.cuda.matmul.allow_tf32 = False
torch.cuda.synchronize()
device = torch.device("cuda", 0)
"""
EXP = X + "fd.add_output(fd.ops.exp(x))\n"
CONSTRUCTS.append(("process-set-up-lines", _script(EXP, before=PROCESS_SET_UP), _script(EXP)))


# a FusionDefinition subclass defined where it is used, inside a function, as nvFuser's tests write it
SUBCLASS_IN_A_FUNCTION = """\
def make(scale):
    class Scaled(FusionDefinition):
        def definition(self):
            x = self.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)
            self.add_output(self.ops.mul(x, scale))

    return Scaled()


fd = make(2.0)
"""
CONSTRUCTS.append(
    (
        "subclass-inside-a-function",
        HEADER + SUBCLASS_IN_A_FUNCTION,
        _script(X + "fd.add_output(fd.ops.mul(x, 2.0))\n"),
    )
)


@pytest.mark.parametrize(("script", "twin"), [c[1:] for c in CONSTRUCTS], ids=[c[0] for c in CONSTRUCTS])
def test_a_construct_defines_the_same_fusion_as_its_straight_line_twin(script, twin):
    loaded = load(script, device="meta")
    assert loaded.fusion == load(twin, device="meta").fusion
    assert loaded.format == "fusion definition script"


def test_the_readme_example_with_a_loop_loads():
    readme = HEADER.replace("nvfuser", "hfuse") + textwrap.dedent("""\
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)
            for i in range(3):
                t = fd.ops.slice(t0, start_indices=[0, 0, 1024 * i], end_indices=[16, 128, 1024 * (i + 1)])
                t = fd.ops.reshape(t, new_shape=[16, 128, 16, 64])
                fd.add_output(fd.ops.permute(t, dims=[0, 2, 1, 3]))

        x = torch.randn(16, 128, 3072, device="cuda")
        q, k, v = fd.execute([x])                               # 0 kernels: views of x
        q, k, v = fd.execute([x], alias_outputs=False, profile=True)  # 1 kernel
        print(fd.profile().kernel_profiles, fd.last_triton_code(), fd.segmentation())
        """)
    twin = HEADER + textwrap.dedent("""\
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)
            for start in (0, 1024, 2048):
                t = fd.ops.slice(t0, start_indices=[0, 0, start], end_indices=[16, 128, start + 1024])
                t = fd.ops.reshape(t, new_shape=[16, 128, 16, 64])
                fd.add_output(fd.ops.permute(t, dims=[0, 2, 1, 3]))
        inputs = [torch.randn(16, 128, 3072, device="cuda")]
        """)
    loaded = load(readme, device="meta")
    assert loaded.fusion == load(twin, device="meta").fusion
    assert [tuple(t.shape) for t in loaded.inputs] == [(16, 128, 3072)]
    assert loaded.printed == ""  # the print is about the run, which loading does not do


def test_print_is_kept_as_the_script_output():
    script = _script(
        X + 'print("rank", x.ndim, [1, 2.5], {"a": (None,)}, x, sep=", ")\nfd.add_output(x)\n',
        before="""\
        print("shapes:", [(2, 3)], DataType.Half, torch.float16)
        for i in range(2):
            print(i, end=" ")
        print()
        """,
    )
    assert load(script, device="meta").printed == (
        "shapes: [(2, 3)] DataType.Half torch.float16\n0 1 \nrank, 2, [1, 2.5], {'a': (None,)}, T0\n"
    )


def test_classes_of_settings_print_as_python_prints_them():
    script = _script(
        X + "fd.add_output(x)\n",
        before=SETTINGS_CLASSES
        + "print(Config(2.0), Direction.OUTGOING, list(Direction), Scaler(1).offset, Config, Direction)\n",
    )
    assert load(script, device="meta").printed == (
        "Config(scale=2.0, bias=1.0, dims=[]) Direction.OUTGOING [Direction.INCOMING, Direction.OUTGOING] 1 "
        "<class 'Config'> <enum 'Direction'>\n"
    )


def test_printed_output_is_cut_past_a_hundred_thousand_characters():
    script = _script(X + "fd.add_output(x)\n", before="for i in range(300):\n    print(list(range(100)))\n")
    printed = load(script, device="meta").printed
    assert len(printed) < 101_000 and printed.endswith("(the output is cut at 100000 characters)\n")


@pytest.mark.parametrize(
    ("body", "message", "line"),
    [
        (
            "assert x.ndim == 3, 'expected a 3-d input'\n",
            "the script's assert fails: expected a 3-d input",
            5,
        ),
        ("assert len([x]) > 1\n", "the script's assert fails", 5),
    ],
    ids=["with-message", "without-message"],
)
def test_a_failing_assert_is_a_located_error(body, message, line):
    with pytest.raises(DefinitionError, match=re.escape(message)) as caught:
        load(_script(X + body + "fd.add_output(x)\n"), device="meta")
    assert caught.value.loc.line == line


# (id, script, message, line): what stays outside the subset, and errors of the new constructs
REFUSED = [
    ("fusion-value-truth", _script(X + "if x:\n    fd.add_output(x)\n"), "T0 has no truth value", 5),
    (
        "missing-argument",
        _script(X + "f(x)\n", before="def f(a, b):\n    return a\n"),
        "f() is missing the argument b",
        7,
    ),
    (
        "unknown-keyword",
        _script(X + "f(x, c=1)\n", before="def f(a, b=1):\n    return a\n"),
        "f() has no parameter c",
        7,
    ),
    (
        "too-many-arguments",
        _script(X + "f(x, x)\n", before="def f(a):\n    return a\n"),
        "f() takes 1 positional",
        7,
    ),
    ("break-outside-loop", _script(X + "break\n"), "break is written outside a loop", 5),
    ("return-at-top-level", "return 3\n", "return is written outside a function", 1),
    ("in-with-fusion-values", _script(X + "b = x in [x]\n"), "`in` does not apply to fusion values", 5),
    ("unhashable-key", _script(X + "d = {x: 1}\n"), "cannot be a dict key", 5),
    ("lambda", _script(X + "f = lambda t: t\n"), "lambda expressions are not part", 5),
    ("except-star", _script(X + "try:\n    pass\nexcept* ValueError:\n    pass\n"), "except* blocks", 5),
    ("import-in-definition", _script(X + "import math\n"), "imports inside a definition are not part", 5),
    ("string-arithmetic", "s = 'a' - 'b'\n", "- applies to numbers and fusion values", 1),
    (
        "dataclass-missing-field",
        _script(X, before=SETTINGS_CLASSES + "c = Config()\n"),
        "Config() is missing the field scale",
        44,
    ),
    (
        "dataclass-unknown-field",
        _script(X, before=SETTINGS_CLASSES + "c = Config(1.0, size=2)\n"),
        "Config() has no field size; its fields are scale, bias, dims",
        44,
    ),
    (
        "dataclass-too-many-values",
        _script(X, before=SETTINGS_CLASSES + "c = Config(1.0, 2.0, [], 4)\n"),
        "Config() takes 3 fields but 4 values were given",
        44,
    ),
    (
        "frozen-dataclass-write",
        _script(X, before=SETTINGS_CLASSES + "c = Config(1.0)\nc.scale = 2.0\n"),
        "Config is a frozen dataclass",
        45,
    ),
    (
        "dataclass-shared-list-default",
        "from dataclasses import dataclass\n@dataclass\nclass C:\n    dims: list = []\n",
        "write field(default_factory=list)",
        4,
    ),
    (
        "class-body-statement",
        "class C:\n    x = 1\n    if x:\n        y = 2\n",
        "class C may hold only annotated fields",
        3,
    ),
    (
        "class-unknown-decorator",
        "def deco(c):\n    return c\n@deco\nclass C:\n    pass\n",
        "a class may be decorated only with @dataclass",
        3,
    ),
    ("plain-class-without-init", "class C:\n    pass\nc = C(1)\n", "C() takes no arguments", 3),
    (
        "enum-value-not-found",
        _script(X, before=SETTINGS_CLASSES + "d = Direction(7)\n"),
        "7 is not the value of a member of Direction",
        44,
    ),
    (
        "dtype-compared",
        _script(X + "if x.dtype() == DataType.Float:\n    fd.add_output(x)\n"),
        "T0.dtype() is known only when the fusion runs with its inputs",
        5,
    ),
    (
        "private-method",
        "class A(FusionDefinition):\n    def _h(self):\n        pass\n",
        "names not starting with _",
        2,
    ),
]


@pytest.mark.parametrize(("script", "message", "line"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_what_is_outside_the_subset_is_a_located_parse_error(script, message, line):
    with pytest.raises(ParseError, match=re.escape(message)) as caught:
        load(script, device="meta")
    assert caught.value.loc.line == line


# (id, inputs list as a script writes it, the same tensors made with torch)
INPUT_LISTS = [
    ("rand-plus-constant", "[torch.rand(5, 1) + 0.5]", lambda: [torch.rand(5, 1) + 0.5]),
    (
        "abs-neg-arithmetic",
        "[(-torch.randn(3, 4)).abs() * 2 - 1]",
        lambda: [(-torch.randn(3, 4)).abs() * 2 - 1],
    ),
    (
        "to-dtype-and-device",
        "[torch.randn(3, 4).to(torch.float16).to('cuda')]",
        lambda: [torch.randn(3, 4).half()],
    ),
    (
        "casts",
        "[torch.randn(2, 3).half(), torch.randn(2, 3).float(), torch.randn(2).bfloat16(), "
        "torch.randn(2).double()]",
        lambda: [
            torch.randn(2, 3).half(),
            torch.randn(2, 3),
            torch.randn(2).bfloat16(),
            torch.randn(2).double(),
        ],
    ),
    ("cuda", "[torch.randn(2, 3).cuda()]", lambda: [torch.randn(2, 3)]),
    ("t", "[torch.randn(3, 5).t()]", lambda: [torch.randn(3, 5).t()]),
    ("transpose", "[torch.randn(2, 3, 5).transpose(0, 2)]", lambda: [torch.randn(2, 3, 5).transpose(0, 2)]),
    ("contiguous", "[torch.randn(3, 5).t().contiguous()]", lambda: [torch.randn(3, 5).t().contiguous()]),
    ("expand", "[torch.randn(3, 1).expand(3, 4)]", lambda: [torch.randn(3, 1).expand(3, 4)]),
    (
        "as-strided",
        "[torch.randn(12).as_strided((3, 2), (1, 3))]",
        lambda: [torch.randn(12).as_strided((3, 2), (1, 3))],
    ),
    (
        "arange-reshape",
        "[torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)[:, 1:, ::2]]",
        lambda: [torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)[:, 1:, ::2]],
    ),
    (
        "like-constructors",
        "[torch.zeros_like(base), torch.ones_like(base, dtype=torch.float64), torch.full_like(base, 7.0), "
        "torch.randn_like(base), torch.empty_strided((2, 3), (1, 2))]",
        lambda: [
            torch.zeros(2, 3),
            torch.ones(2, 3, dtype=torch.float64),
            torch.full((2, 3), 7.0),
            torch.randn(2, 3),
            torch.empty_strided((2, 3), (1, 2)),
        ],
    ),
    (
        "cos-sin-tanh-log",
        "[base.cos(), base.sin(), base.tanh(), base.abs().log()]",
        lambda: [torch.randn(2, 3)] * 4,
    ),
    ("type-cast", "[torch.arange(2).type(torch.complex64)]", lambda: [torch.arange(2).type(torch.complex64)]),
    (
        "reductions-and-torch-functions",
        "[base.mean(1, keepdim=True), base.var(dim=[0], unbiased=False), torch.sqrt(base.abs() + 1e-5), "
        "torch.rsqrt(base.sum(0) ** 2 + 1), base.amax(-1)]",
        lambda: [torch.randn(2, 1), torch.randn(3), torch.randn(2, 3), torch.randn(3), torch.randn(2)],
    ),
    (
        "cat-stack-and-channels-last",
        "[torch.cat([base, base], dim=-1), torch.stack((base, base)), "
        "torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)]",
        lambda: [
            torch.randn(2, 6),
            torch.randn(2, 2, 3),
            torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last),
        ],
    ),
    ("from-torch-import", "[ones(2, 2), full((2,), 3.0)]", lambda: [torch.ones(2, 2), torch.full((2,), 3.0)]),
    (
        "torch-device",
        "[torch.ones(2, device=torch.device('cuda')), torch.zeros(3, device=torch.device('cpu'))]",
        lambda: [torch.ones(2), torch.zeros(3)],
    ),
    (
        "mask-from-comparison",
        "[base, base > 0]",
        lambda: [torch.randn(2, 3), torch.randn(2, 3) > 0],
    ),
]


@pytest.mark.parametrize(("written", "made"), [c[1:] for c in INPUT_LISTS], ids=[c[0] for c in INPUT_LISTS])
def test_inputs_written_with_torch_methods_are_made_as_torch_makes_them(written, made):
    script = (
        HEADER
        + "from torch import full, ones\n"
        + f"base = torch.randn(2, 3, device='cuda')\ninputs = {written}\n"
        + textwrap.dedent("""\
        with FusionDefinition() as fd:
            ts = [fd.from_pytorch(t) for t in inputs]
            fd.add_output(ts[0])
        """)
    )
    loaded = load(script, device="cpu")
    want = made()
    assert len(loaded.inputs) == len(want)
    for got, expected in zip(loaded.inputs, want, strict=True):
        assert (got.shape, got.stride(), got.dtype) == (expected.shape, expected.stride(), expected.dtype)
        assert got.device.type == "cpu"
    assert load(script, device="meta").fusion == loaded.fusion  # the meta twins describe the same tensors


def test_deterministic_inputs_hold_the_values_torch_gives():
    script = HEADER + textwrap.dedent("""\
        inputs = [torch.arange(12).reshape(3, 4).t() * 2 + 1, (torch.arange(24.0) / 4).reshape(2, 4, 3)[1]]
        with FusionDefinition() as fd:
            fd.add_output(fd.from_pytorch(inputs[0]) + fd.from_pytorch(inputs[1]))
        """)
    a, b = load(script, device="cpu").inputs
    torch.testing.assert_close(a, torch.arange(12).reshape(3, 4).t() * 2 + 1)
    torch.testing.assert_close(b, (torch.arange(24.0) / 4).reshape(2, 4, 3)[1])


def test_a_tensor_used_twice_in_the_inputs_is_made_once():
    script = HEADER + textwrap.dedent("""\
        x = torch.randn(4, device="cuda")
        inputs = [x, x * 2]
        with FusionDefinition() as fd:
            fd.add_output(fd.from_pytorch(inputs[0]) + fd.from_pytorch(inputs[1]))
        """)
    x, doubled = load(script, device="cpu").inputs
    torch.testing.assert_close(doubled, x * 2)


def test_pairs_of_values_and_indices_are_made_from_the_same_tensor():
    script = HEADER + textwrap.dedent("""\
        x = torch.randn(8, 5, device="cuda")
        _, top = torch.topk(x, k=3, dim=0)
        ordered, order = x.sort(dim=1, descending=True)
        inputs = [x, top, ordered, order, x.kthvalue(2, 1)[0]]
        with FusionDefinition() as fd:
            for t in inputs:
                fd.add_output(fd.from_pytorch(t))
        """)
    x, top, ordered, order, kth = load(script, device="cpu").inputs
    assert top.dtype == torch.int64 and top.shape == (3, 5)
    torch.testing.assert_close(top, torch.topk(x, k=3, dim=0).indices)
    torch.testing.assert_close((ordered, order), tuple(x.sort(dim=1, descending=True)))
    torch.testing.assert_close(kth, x.kthvalue(2, 1).values)
