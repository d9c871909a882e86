"""The parts of a test that expect an error: `with pytest.raises(RuntimeError, match=...):`,
`with self.assertRaisesRegex(RuntimeError, "..."):` and the call `self.assertRaises(RuntimeError, fn, ...)`.

What they hold is written to fail (nvFuser refuses it), so it is not a fusion to read: the loader passes
over each of them whole, nothing in it is run or recorded, and `Script.note` names their lines.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from hfuse.loader.classes import Instance
from hfuse.loader.environment import UnreadModule
from hfuse.loader.pasted_test import TEST_CASE

TEST_CASE_ASSERTIONS = frozenset({"assertRaises", "assertRaisesRegex"})
PYTEST_RAISES = "pytest.raises"


def expects_failure(statement: ast.stmt, lookup: Callable[[str], Any]) -> bool:
    """Whether `statement` is a with block or a call of pytest.raises or of a stand-in test case's
    assertRaises(Regex); `lookup(name)` is what the script's name is bound to."""
    if isinstance(statement, ast.With):
        calls = [item.context_expr for item in statement.items]
    elif isinstance(statement, ast.Expr):
        calls = [statement.value]
    else:
        return False
    return any(isinstance(call, ast.Call) and _expects_failure(call.func, lookup) for call in calls)


def _expects_failure(function: ast.expr, lookup: Callable[[str], Any]) -> bool:
    if isinstance(function, ast.Name):  # from pytest import raises
        found = lookup(function.id)
        return isinstance(found, UnreadModule) and found.name == PYTEST_RAISES
    if not (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name)):
        return False
    owner = lookup(function.value.id)
    if isinstance(owner, UnreadModule):
        return f"{owner.name}.{function.attr}" == PYTEST_RAISES
    is_test_case = isinstance(owner, Instance) and owner.owner.name == TEST_CASE
    return is_test_case and function.attr in TEST_CASE_ASSERTIONS
