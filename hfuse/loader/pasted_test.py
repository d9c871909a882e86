"""A test method pasted from nvFuser's own test suite: `def test_gather(self): ...`, or a test function
of its nvfuser_direct suite, `def test_gather(nvfuser_direct_test): ...`.

nvFuser's tests build and run each fusion through their test case's `self.exec_nvfuser(fusion_func,
inputs)` and check it with `self.assertEqual(...)`. A script that holds one such method and no
definition of its own is read by calling it with a stand-in test case, written below in the subset the
loader reads: its `exec_nvfuser` records `fusion_func` as a definition and runs it on `inputs`, its
assertions do nothing (those about the run's results are passed over before they are read). The names
the suite's module imports are bound where the script leaves them unbound.
"""

from __future__ import annotations

import ast
import copy

TEST_CASE = "NvFuserTestCase"
# what nvFuser's test module imports and the loader reads, for a method pasted without them
SUITE_IMPORTS = """\
import itertools
import math
import torch
import torch.nn.functional as F
from functools import partial
from nvfuser import FusionDefinition, DataType
from nvfuser import Tensor
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype
"""
# torch's private modules the suite computes its references with (`refs.add`, `prims.broadcast_in_dim`)
SUITE_TORCH_MODULES = {"refs": "torch._refs", "prims": "torch._prims"}
_STAND_IN = f"""\
LOW_VAL = -2
HIGH_VAL = 2


def skip_if_global_memory_below_gb(min_gb, gpu_id=0):
    pass


def is_pre_blackwell():
    return False


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
    """The script's one top-level `def test_...(self)` (or, of the nvfuser_direct suite, a test function
    taking its `nvfuser_direct_test` fixture), where it has exactly one."""
    found = [
        s
        for s in tree.body
        if isinstance(s, ast.FunctionDef)
        and s.name.startswith("test")
        and [a.arg for a in s.args.args] in (["self"], ["nvfuser_direct_test"])
        and not s.decorator_list
    ]
    return found[0] if len(found) == 1 else None


def suite_context(method: ast.FunctionDef) -> list[ast.stmt]:
    """The suite's imports, the constants of its repro module (the bounds of make_tensor), its GPU checks
    (every GPU is recent and large enough) and the stand-in test case, placed at the method's line."""
    return _placed(method, copy.deepcopy(_CONTEXT))


def bound_names(statement: ast.stmt) -> list[str]:
    """The names an import or a definition of the suite's context binds."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return [(alias.asname or alias.name).split(".")[0] for alias in statement.names]
    if isinstance(statement, ast.Assign):
        return [target.id for target in statement.targets if isinstance(target, ast.Name)]
    assert isinstance(statement, ast.FunctionDef | ast.ClassDef)
    return [statement.name]


def calling_it(method: ast.FunctionDef) -> ast.stmt:
    """The call of `method` with a stand-in test case, placed at the method's line."""
    stand_in = ast.Call(ast.Name(TEST_CASE, ast.Load()), [], [])
    return _placed(method, [ast.Expr(ast.Call(ast.Name(method.name, ast.Load()), [stand_in], []))])[0]


def _placed(method: ast.FunctionDef, statements: list[ast.stmt]) -> list[ast.stmt]:
    """`statements` located at the method's line, so that what they record and refuse is placed there."""
    for statement in statements:
        for node in ast.walk(statement):
            if "lineno" in node._attributes:
                node.lineno, node.end_lineno = method.lineno, method.lineno
                node.col_offset, node.end_col_offset = method.col_offset, method.col_offset
    return statements
