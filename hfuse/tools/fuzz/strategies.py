"""Hypothesis strategies for the fuzzing campaign: definition scripts mutated from seed scripts.

`mutated_scripts()` starts from a seed script (the example gallery and a few built-in scripts) and
applies one to three mutations: token deletions, duplications and swaps, random, huge, negative and
wrongly typed literals, renamed ops, dtypes and variables, deep nesting, and whole-line edits.

Random valid fusions are drawn by hfuse/fuzz_recipes.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from hfuse.examples import EXAMPLES_DIR
from hfuse.loader.fd import op_names

# A tokenizer that never fails, so mutated (even broken) text can be mutated again.
TOKEN = re.compile(
    r"""[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+|[A-Za-z_]\w*|'[^'\n]*'|"[^"\n]*"|"""
    r"""\*\*|//|<<|>>|[=!<>]=|->|\S"""
)
NUMBER = re.compile(r"[0-9.]")
NAME = re.compile(r"[A-Za-z_]")

LITERALS = (
    "0", "1", "-1", "2", "3", "-7", "17", "1024", "0.5", "-0.0", "1e-30", "1e308", "-1e308",
    "2**31", "2**32", "2**40", "2**62", "2**63", "2**64", "-2**63", "10**18", "10**30", "-10**18",
    "9" * 40, "float('nan')", "float('inf')", "-float('inf')", "True", "False", "5e-324", "1e30", "-1e30",
)  # fmt: skip
WRONG_TYPES = (
    "None", "'a'", "''", "[]", "[1, 2]", "[[1], [2]]", "(1,)", "()", "[None]", "[0.5, 1.5]", "[-1, -1]",
    "DataType.Float", "DataType.Null", "DataType.Index", "torch.float32", "torch.bool", "fd", "fd.ops",
    "inputs", "inputs[0]", "complex(1, 2)", "1j", "1.5", "-2.5", "True", "FusionDefinition", "DataType",
    "torch", "len([1])", "abs(-3)", "int(2.5)", "torch.randn(2)", "fd.define_scalar(2)",
)  # fmt: skip
NAMES = (
    "add", "mul", "sum", "reshape", "permute", "slice", "pad", "cat", "broadcast_in_dim", "expand",
    "squeeze", "var_mean", "cast", "where", "select", "index_select", "gather", "matmul", "linear",
    "topk", "argsort", "cumsum", "full", "iota", "triu", "welford", "define_tensor", "define_scalar",
    "from_pytorch", "add_output", "execute", "shape", "size", "at", "dims", "shape", "keepdim", "dtype",
    "new_shape", "broadcast_dims", "contiguity", "stride_order", "Float", "Half", "BFloat16", "Int",
    "Bool", "Double", "ComplexFloat", "Float8_e4m3fn", "UInt64", "Null", "open", "exec", "eval",
    "__import__", "getattr", "os", "sys", "print", "ndim", "T0", "T1", "S0", "fd", "inputs", "self",
)  # fmt: skip
SNIPPETS = (
    "fd.execute(inputs)", "inputs = []", "inputs = [torch.randn(2, 3)]", "import os", "from os import path",
    "    T99 = fd.ops.sum(T0, dims=[9])", "    fd.add_output(T0)", "    fd.add_output(fd.define_scalar(1))",
    "    T0 = fd.define_tensor(shape=[-1] * 9)", "    x = fd.ops.reshape(T0, new_shape=[-1, -1])",
    "    y = fd.ops.broadcast_in_dim(T0, shape=[2**40, 2**40], broadcast_dims=[0])",
    "    z = fd.ops.full(shape=[2**30, 2**30], fill_value=1.0, dtype=DataType.Float)",
    "    w = fd.ops.iota(2**62, dtype=DataType.Int)", "    fd.ops.pad(T0, [2**62, 2**62])",
    "    return", "    pass", "with FusionDefinition() as fd:", "def f(fd):", "class A(FusionDefinition):",
    "    s = fd.define_scalar(None, dtype=DataType.Int)", "    t = fd.ops.slice(T0, [0], [2**63 - 1])",
    "while True: pass", "    print(T0)", "fd = None", "del fd", "    T0 = T0 + T0 * T0 - T0 / T0",
    "inputs = [torch.randint(10, (3,), dtype=torch.bool)]", "inputs = [torch.tensor([[1, 2], [3]])]",
    "inputs = [torch.testing.make_tensor(3, dtype=torch.float32, low=5, high=1)]",
    "inputs = [torch.randn(3).as_strided((2**40,), (0,))]", "inputs = [torch.randn(1).expand(2**62)]",
    "inputs = [torch.tensor(2.0, device='cpu'), torch.zeros(0, 2**62)]",
    "inputs = [torch.arange(float('inf'))]", "inputs = [torch.arange(float('nan'), 3)]",
    "inputs = [torch.arange(0, 1, 5e-324)]", "inputs = [torch.arange(0, 1, 1e-300)]",
    "    T9 = fd.define_tensor(sizes=[4, 3], strides=[-3, 1])",
    "    s = fd.define_scalar(1e30, dtype=DataType.Int)",
    "    fd.add_output(fd.ops.pad(fd.ops.cast(T0, DataType.Int), [1, 1], float('nan')))",
    "    fd.add_output(fd.ops.pad(fd.ops.cast(T0, DataType.Int), [1, 1], 1 + 2j))",
    "    # a lone surrogate: \ud800", "x = '\udcff'",
)  # fmt: skip
NESTING_WRAPPERS = (("(", ")"), ("[", "]"), ("-", ""), ("abs(", ")"), ("fd.ops.neg(", ")"), ("not ", ""))
NESTING_DEPTHS = (2, 8, 31, 33, 100, 1000, 5000)

# Scripts that reach parts of the frontend the example gallery does not use.
SEED_SCRIPTS = (
    """\
from nvfuser import FusionDefinition, DataType
import torch

class MyFusion(FusionDefinition):
    def definition(self):
        t0 = self.define_tensor(sizes=[4, 6], strides=[1, 4], dtype=DataType.Half)
        s0 = self.define_scalar(None, dtype=DataType.Double)
        t1 = self.ops.cast(t0, DataType.Float)
        t2 = self.ops.mul(t1, s0)
        t3, t4 = self.ops.var_mean(t2, dims=[1], correction=0, keepdim=True)
        self.add_output(t3)
        self.add_output(self.ops.cast(t4, DataType.Half))

fd = MyFusion()
fd.execute([torch.randn(24, dtype=torch.float16).as_strided((4, 6), (1, 4)), 0.5])
""",
    """\
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int)
    S0 = fd.ops.size(T0, 2)
    V0 = fd.ops.shape(T0)
    T2 = fd.ops.index_select(T0, T1, dim=2)
    T3 = fd.ops.sum(T2, dims=[-1], keepdim=False)
    T4 = fd.ops.topk(T3, 2, dim=0)
    T5 = fd.ops.cumsum(T0, 0)
    T6 = fd.ops.slice(T5, [0, 0, 1], [2, 1, S0], [1, 1, 1])
    T7 = fd.ops.pad(T6, [1, 1], -1.0)
    T8 = fd.ops.cat([T7, T7], 0)
    T9 = fd.ops.triu(fd.ops.squeeze(T8, [1]), diagonal=1)
    fd.add_output(T4[0])
    fd.add_output(T9)
    fd.add_output(fd.ops.reshape(T0, V0))

inputs = [torch.randn(2, 1, 8), torch.randint(0, 8, (3,))]
fd.execute(inputs)
""",
    """\
from nvfuser import FusionDefinition, DataType
import torch

def nvfuser_fusion_id3(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguous=[True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguous=[True, True], dtype=DataType.BFloat16)
    T2 = fd.ops.linear(T0, T1)
    T3 = fd.ops.matmul(T0, fd.ops.permute(T1, [1, 0]))
    T4 = fd.ops.where(fd.ops.gt(T2, 0.0), T2, T3)
    T5 = fd.ops.full(shape=[3, 5], fill_value=2.0, dtype=DataType.BFloat16)
    T6 = fd.ops.iota(5, 0, 1, dtype=DataType.Int)
    T7 = fd.ops.broadcast_in_dim(T6, shape=[3, 5], broadcast_dims=[1])
    fd.add_output(fd.ops.add(T4, T5) * fd.ops.cast(T7, DataType.BFloat16))

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [torch.randn(3, 4, dtype=torch.bfloat16), torch.randn(5, 4, dtype=torch.bfloat16)]
fd.execute(inputs)
""",
)


def seed_texts() -> tuple[str, ...]:
    """The example gallery (small subset) and the built-in seed scripts."""
    gallery = tuple(path.read_text(encoding="utf-8") for path in sorted(EXAMPLES_DIR.glob("*.py")))
    return gallery + SEED_SCRIPTS


# ----------------------------------------------------------------------------------- text mutations

Draw = Callable[[st.SearchStrategy], Any]


def _tokens(text: str, pattern: re.Pattern | None = None) -> list[re.Match]:
    found = list(TOKEN.finditer(text))
    if pattern is not None:
        found = [m for m in found if pattern.match(m.group())]
    return found


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _pick(draw: Draw, items: list) -> Any:
    return items[draw(st.integers(0, len(items) - 1))]


def delete_token(draw: Draw, text: str) -> str:
    tokens = _tokens(text)
    if not tokens:
        return text
    token = _pick(draw, tokens)
    return _splice(text, token.start(), token.end(), "")


def duplicate_token(draw: Draw, text: str) -> str:
    tokens = _tokens(text)
    if not tokens:
        return text
    token = _pick(draw, tokens)
    return _splice(text, token.start(), token.end(), f"{token.group()} {token.group()}")


def swap_tokens(draw: Draw, text: str) -> str:
    tokens = _tokens(text)
    if len(tokens) < 2:
        return text
    first = draw(st.integers(0, len(tokens) - 2))
    second = draw(st.one_of(st.just(first + 1), st.integers(first + 1, len(tokens) - 1)))
    a, b = tokens[first], tokens[second]
    return text[: a.start()] + b.group() + text[a.end() : b.start()] + a.group() + text[b.end() :]


def _replace_token(draw: Draw, text: str, pattern: re.Pattern | None, choices: tuple[str, ...]) -> str:
    tokens = _tokens(text, pattern)
    if not tokens:
        return text
    token = _pick(draw, tokens)
    return _splice(text, token.start(), token.end(), draw(st.sampled_from(choices)))


def random_literal(draw: Draw, text: str) -> str:
    """A number replaced by a random, huge, negative or special one."""
    return _replace_token(draw, text, NUMBER, (*LITERALS, str(draw(st.integers(-(2**70), 2**70)))))


def wrong_type(draw: Draw, text: str) -> str:
    """A number or a name replaced by a value of another type."""
    return _replace_token(draw, text, re.compile(r"[0-9.A-Za-z_]"), WRONG_TYPES)


def rename(draw: Draw, text: str) -> str:
    """A name replaced by another name of the script or of the API (ops, keywords, dtypes, builtins)."""
    names = tuple(sorted({m.group() for m in _tokens(text, NAME)})) or NAMES
    return _replace_token(draw, text, NAME, names + NAMES)


def swap_op(draw: Draw, text: str) -> str:
    """`fd.ops.<name>` renamed to another op, so it meets operands and arguments it does not take."""
    calls = list(re.finditer(r"(?<=\bops\.)\w+", text))
    if not calls:
        return text
    call = _pick(draw, calls)
    return _splice(text, call.start(), call.end(), draw(st.sampled_from(sorted(op_names()))))


def extra_argument(draw: Draw, text: str) -> str:
    """One more positional or keyword argument before a closing parenthesis."""
    closers = [m for m in _tokens(text) if m.group() == ")"]
    if not closers:
        return text
    closer = _pick(draw, closers)
    keyword = draw(st.sampled_from(("", "dims=", "dim=", "dtype=", "shape=", "keepdim=", "alias_input=")))
    value = draw(st.sampled_from(LITERALS + WRONG_TYPES))
    return _splice(text, closer.start(), closer.start(), f", {keyword}{value}")


def deep_nesting(draw: Draw, text: str) -> str:
    tokens = _tokens(text, re.compile(r"[0-9A-Za-z_]"))
    if not tokens:
        return text
    token = _pick(draw, tokens)
    opener, closer = draw(st.sampled_from(NESTING_WRAPPERS))
    depth = draw(st.sampled_from(NESTING_DEPTHS))
    return _splice(text, token.start(), token.end(), opener * depth + token.group() + closer * depth)


def edit_line(draw: Draw, text: str) -> str:
    """Deletes, duplicates, swaps, re-indents a line, or inserts a snippet."""
    lines = text.split("\n")
    index = draw(st.integers(0, len(lines) - 1))
    action = draw(st.sampled_from(("delete", "duplicate", "swap", "indent", "dedent", "insert")))
    if action == "delete":
        del lines[index]
    elif action == "duplicate":
        lines.insert(index, lines[index])
    elif action == "swap":
        other = draw(st.integers(0, len(lines) - 1))
        lines[index], lines[other] = lines[other], lines[index]
    elif action == "indent":
        lines[index] = "    " + lines[index]
    elif action == "dedent":
        lines[index] = lines[index].removeprefix("    ")
    else:
        lines.insert(index, draw(st.sampled_from(SNIPPETS)))
    return "\n".join(lines)


MUTATIONS: tuple[Callable[[Draw, str], str], ...] = (
    delete_token, duplicate_token, swap_tokens, random_literal, random_literal, wrong_type, rename,
    deep_nesting, edit_line, swap_op, extra_argument,
)  # fmt: skip


@st.composite
def mutated_scripts(draw: Draw, seeds: tuple[str, ...] | None = None) -> str:
    text = draw(st.sampled_from(seeds or seed_texts()))
    for _ in range(draw(st.integers(1, 3))):
        text = draw(st.sampled_from(MUTATIONS))(draw, text)
    return text
