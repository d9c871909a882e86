"""A test method pasted from nvFuser's own test suite: `def test_gather(self): ...`, or a test function
of its nvfuser_direct suite, `def test_gather(nvfuser_direct_test): ...`.

nvFuser's tests build and run each fusion through their test case's `self.exec_nvfuser(fusion_func,
inputs)` and check it with `self.assertEqual(...)`. A script that holds one such method and no
definition of its own is read by calling it with a stand-in test case, written below in the subset the
loader reads: its `exec_nvfuser` records `fusion_func` as a definition and runs it on `inputs`, its
assertions do nothing (those about the run's results are passed over before they are read). The names
the suite's module imports are bound where the script leaves them unbound.

A test may carry pytest's marks: skip conditions are not read. The suite's GPU checks answer for one
H200 (compute capability 9.0, as `torch.cuda` answers: not before Hopper, before Blackwell) with memory
enough, and each parameter of `@pytest.mark.parametrize(names, values)` takes the first of its values,
pytest's first case.
"""

from __future__ import annotations

import ast
import copy

from hfuse.loader.source import dotted_name

TEST_CASE = "NvFuserTestCase"
FIXTURE = "nvfuser_direct_test"  # the nvfuser_direct suite's test case, a pytest fixture
_SHOWN_VALUE_CHARS = 40
# what nvFuser's test module imports and the loader reads, for a method pasted without them
SUITE_IMPORTS = """\
import itertools
import math
import pytest
import torch
import torch.nn.functional as F
from functools import partial
from itertools import permutations
from nvfuser import FusionDefinition, DataType
from nvfuser import FusionCache
from nvfuser import compute_contiguity, compute_tensor_descriptor, version
from nvfuser import Tensor
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype
"""
# torch's private modules the suite computes its references with (`refs.add`, `prims.broadcast_in_dim`)
SUITE_TORCH_MODULES = {"refs": "torch._refs", "prims": "torch._prims"}
_STAND_IN = f"""\
LOW_VAL = -2
HIGH_VAL = 2
debug_serde = False


def skip_if_global_memory_below_gb(min_gb, gpu_id=0):
    pass


def is_pre_blackwell():
    return True


def is_pre_volta():
    return False


def is_pre_ampere():
    return False


def is_pre_hopper():
    return False


class {TEST_CASE}:
    def exec_nvfuser(self, fusion_func, inputs, *args, **kwargs):
        with FusionDefinition() as fd:
            fusion_func(fd)
        return fd.execute(inputs), fd

    def assertEqual(self, *args, **kwargs):
        pass

    def assertTrue(self, *args, **kwargs):
        pass

    def assertFalse(self, *args, **kwargs):
        pass
"""


# parsed once, at import: the app's sessions load scripts in threads, and CPython 3.11's parser must not
# run in two at once (see loader.script._PARSING)
_CONTEXT = [*ast.parse(SUITE_IMPORTS).body, *ast.parse(_STAND_IN).body]


def pasted_test_method(tree: ast.Module) -> ast.FunctionDef | None:
    """The script's one top-level test (a `def test_...` whose parameters are its test case, `self` or the
    nvfuser_direct suite's `nvfuser_direct_test` fixture, first, and those its parametrize marks give, and
    whose decorators are pytest's or unittest's marks), where it has exactly one."""
    found = [s for s in tree.body if isinstance(s, ast.FunctionDef) and _is_pasted_test(s)]
    return found[0] if len(found) == 1 else None


def _is_pasted_test(function: ast.FunctionDef) -> bool:
    if not function.name.startswith("test") or not all(_is_test_mark(d) for d in function.decorator_list):
        return False
    arguments = function.args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs:
        return False
    names = [a.arg for a in arguments.args]
    if names[:1] in (["self"], [FIXTURE]):
        names = names[1:]
    given = parametrized_arguments(function)
    return given is not None and sorted(names) == sorted(k.arg for k in given if k.arg is not None)


def _is_test_mark(decorator: ast.expr) -> bool:
    name = dotted_name(decorator.func if isinstance(decorator, ast.Call) else decorator)
    return name.startswith(("pytest.mark.", "unittest.skip", "unittest.expectedFailure"))


def parametrized_arguments(method: ast.FunctionDef) -> list[ast.keyword] | None:
    """Each parameter a `@pytest.mark.parametrize(names, values)` of the method gives, as the keyword of
    its first value, written where the decorator writes it; None where a decorator cannot be read so."""
    keywords: list[ast.keyword] = []
    for decorator in method.decorator_list:
        if not (isinstance(decorator, ast.Call) and dotted_name(decorator.func) == "pytest.mark.parametrize"):
            continue
        given = {k.arg: k.value for k in decorator.keywords}
        names_node = decorator.args[0] if decorator.args else given.get("argnames")
        values = decorator.args[1] if len(decorator.args) > 1 else given.get("argvalues")
        names = _parameter_names(names_node)
        first = None if names is None or values is None else _first_case(values, len(names))
        if first is None:
            return None
        keywords += [ast.keyword(name, value) for name, value in zip(names, first, strict=True)]
    return keywords


def parametrized_note(method: ast.FunctionDef, keywords: list[ast.keyword]) -> str:
    """What `Script.note` says of the parameters chosen for a test."""
    chosen = ", ".join(f"{k.arg}={ast.unparse(k.value):.{_SHOWN_VALUE_CHARS}}" for k in keywords)
    return f"{method.name} runs with the first value of each @pytest.mark.parametrize list: {chosen}"


def _parameter_names(node: ast.expr | None) -> list[str] | None:
    """`"dtype"`, `"a, b"` or `("a", "b")`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [name.strip() for name in node.value.split(",") if name.strip()]
    if isinstance(node, ast.List | ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def _first_case(values: ast.expr, count: int) -> list[ast.expr] | None:
    """The expressions of the first case of a parametrize list, one per parameter: of a written list, its
    first element (a tuple, or `pytest.param(...)`'s values); else `values[0]`, taken apart by index."""
    if isinstance(values, ast.List | ast.Tuple):
        if not values.elts:
            return None
        first = values.elts[0]
        if isinstance(first, ast.Call) and dotted_name(first.func) == "pytest.param":
            first = first.args[0] if count == 1 and first.args else ast.Tuple(first.args, ast.Load())
    else:
        first = ast.Subscript(values, ast.Constant(0), ast.Load())
    if count == 1:
        return [_located(first, values)]
    if isinstance(first, ast.List | ast.Tuple):
        return first.elts if len(first.elts) == count else None
    return [_located(ast.Subscript(first, ast.Constant(i), ast.Load()), values) for i in range(count)]


def _located(node: ast.expr, where: ast.expr) -> ast.expr:
    for part in ast.walk(node):
        if "lineno" in part._attributes and not hasattr(part, "lineno"):
            ast.copy_location(part, where)
    return node


def suite_context(method: ast.FunctionDef) -> list[ast.stmt]:
    """The suite's imports, the constants of its repro module (the bounds of make_tensor), its GPU checks
    (answering for one H200) and the stand-in test case, placed at the method's line."""
    return _placed(method, copy.deepcopy(_CONTEXT))


def bound_names(statement: ast.stmt) -> list[str]:
    """The names an import or a definition of the suite's context binds."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return [(alias.asname or alias.name).split(".")[0] for alias in statement.names]
    if isinstance(statement, ast.Assign):
        return [target.id for target in statement.targets if isinstance(target, ast.Name)]
    assert isinstance(statement, ast.FunctionDef | ast.ClassDef)
    return [statement.name]


def calling_it(method: ast.FunctionDef, keywords: list[ast.keyword]) -> ast.stmt:
    """The call of `method` with a stand-in test case (where it takes one) and its parameters' values,
    placed at the method's line (the values where their decorators write them)."""
    takes_case = [a.arg for a in method.args.args[:1]] in (["self"], [FIXTURE])
    case = [ast.Call(ast.Name(TEST_CASE, ast.Load()), [], [])] if takes_case else []
    statement = _placed(method, [ast.Expr(ast.Call(ast.Name(method.name, ast.Load()), case, []))])[0]
    statement.value.keywords = keywords  # type: ignore[attr-defined]
    return statement


def _placed(method: ast.FunctionDef, statements: list[ast.stmt]) -> list[ast.stmt]:
    """`statements` located at the method's line, so that what they record and refuse is placed there."""
    for statement in statements:
        for node in ast.walk(statement):
            if "lineno" in node._attributes:
                node.lineno, node.end_lineno = method.lineno, method.lineno
                node.col_offset, node.end_col_offset = method.col_offset, method.col_offset
    return statements
