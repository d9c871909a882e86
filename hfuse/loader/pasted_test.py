"""A test method pasted from nvFuser's own test suite: `def test_gather(self): ...`.

nvFuser's tests build and run each fusion through their test case's `self.exec_nvfuser(fusion_func,
inputs)` and check it with `self.assertEqual(...)`. A script that holds one such method and no
definition of its own is read by calling it with a stand-in test case, written below in the subset the
loader reads: its `exec_nvfuser` records `fusion_func` as a definition and runs it on `inputs`, its
assertions do nothing (those about the run's results are passed over before they are read).
"""

from __future__ import annotations

import ast

TEST_CASE = "NvFuserTestCase"
_STAND_IN = f"""\
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


def pasted_test_method(tree: ast.Module) -> ast.FunctionDef | None:
    """The script's one top-level `def test_...(self)`, where it has exactly one."""
    found = [
        s
        for s in tree.body
        if isinstance(s, ast.FunctionDef)
        and s.name.startswith("test")
        and [a.arg for a in s.args.args] == ["self"]
        and not s.decorator_list
    ]
    return found[0] if len(found) == 1 else None


def calling_it(method: ast.FunctionDef) -> list[ast.stmt]:
    """The stand-in test case's class and the call of `method` with one, placed at the method's line so
    that what they record is located there."""
    statements = [*ast.parse(_STAND_IN).body, ast.parse(f"{method.name}({TEST_CASE}())").body[0]]
    for statement in statements:
        for node in ast.walk(statement):
            if hasattr(node, "lineno"):
                node.lineno, node.end_lineno = method.lineno, method.lineno
                node.col_offset, node.end_col_offset = method.col_offset, method.col_offset
    return statements
