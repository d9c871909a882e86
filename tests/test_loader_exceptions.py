"""A script's own exceptions: `raise`, a failing `assert` and `try` / `except` / `else` / `finally` around
them, read as Python runs them; errors of hfuse's own are never caught."""

import re
import textwrap

import pytest

from hfuse import DefinitionError, LimitError, ParseError, load

HEADER = "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
BLOCK = """\
with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)
    fd.add_output(x * factor)
"""


def _with_factor(choosing: str) -> str:
    """A script whose definition scales by `factor`, which `choosing` computes."""
    return HEADER + textwrap.dedent(choosing) + BLOCK


# (id, the lines that choose the factor, what they print)
HANDLED = [
    (
        "except-matches-the-raised-class",
        """\
        try:
            raise ValueError("too big")
        except TypeError:
            print("not this one")
        except ValueError as e:
            print("caught", e, e.args)
        factor = 2.0
        """,
        "caught too big ('too big',)\n",
    ),
    (
        "except-matches-a-base-class-in-a-tuple",
        """\
        try:
            raise NotImplementedError
        except (KeyError, RuntimeError):
            print("NotImplementedError is a RuntimeError")
        factor = 2.0
        """,
        "NotImplementedError is a RuntimeError\n",
    ),
    (
        "else-runs-when-nothing-is-raised-finally-always",
        """\
        try:
            factor = 2.0
        except Exception:
            print("not raised")
        else:
            print("else")
        finally:
            print("finally")
        """,
        "else\nfinally\n",
    ),
    (
        "finally-runs-on-return-and-in-a-loop-on-break",
        """\
        def pick():
            try:
                return 2.0
            finally:
                print("leaving pick")
        for i in range(3):
            try:
                break
            finally:
                print("leaving the loop at", i)
        factor = pick()
        """,
        "leaving the loop at 0\nleaving pick\n",
    ),
    (
        "a-failing-assert-is-an-assertion-error",
        """\
        try:
            assert 1 > 2, "one is not above two"
        except AssertionError as e:
            print(isinstance(e, Exception), e)
        factor = 2.0
        """,
        "True one is not above two\n",
    ),
    (
        "bare-raise-re-raises-to-the-outer-handler",
        """\
        def check():
            try:
                raise KeyError("k")
            except KeyError:
                print("inner")
                raise
        try:
            check()
        except LookupError:
            print("outer")
        factor = 2.0
        """,
        "inner\nouter\n",
    ),
    (
        "import-inside-a-function-in-a-try",
        """\
        def scale():
            try:
                import math
            except ImportError:
                return 1.0
            return math.sqrt(4.0)
        factor = scale()
        """,
        "",
    ),
]


@pytest.mark.parametrize(("choosing", "printed"), [c[1:] for c in HANDLED], ids=[c[0] for c in HANDLED])
def test_a_script_catches_what_it_raises_as_python_does(choosing, printed):
    script = load(_with_factor(choosing), device="meta")
    assert script.printed == printed
    twin = load(_with_factor("factor = 2.0\n"), device="meta")
    assert script.fusion == twin.fusion


# (id, the lines that choose the factor, the error, its message, its line)
NOT_CAUGHT = [
    (
        "uncaught-raise",
        "raise RuntimeError('no kernel for this')\n",
        DefinitionError,
        "the script raises RuntimeError: no kernel for this",
        3,
    ),
    (
        "handler-of-another-class",
        "try:\n    raise KeyError\nexcept ValueError:\n    pass\n",
        DefinitionError,
        "the script raises KeyError;",
        4,
    ),
    (
        "raise-in-an-except-block-replaces-the-caught-one",
        "try:\n    raise KeyError\nexcept KeyError:\n    raise ValueError('second')\n",
        DefinitionError,
        "the script raises ValueError: second",
        6,
    ),
    (
        "a-name-hfuse-does-not-know",
        "try:\n    factor = unknown_name\nexcept Exception:\n    factor = 2.0\n",
        ParseError,
        "the name unknown_name is not defined here",
        4,
    ),
    (
        "a-limit",
        "try:\n    while True:\n        pass\nexcept BaseException:\n    pass\nfinally:\n    factor = 2.0\n",
        LimitError,
        "reading the script takes more than",
        4,
    ),
    ("bare-raise-outside-a-handler", "raise\n", ParseError, "raise without an exception re-raises", 3),
    ("raise-of-a-number", "raise 3\n", ParseError, "raise takes an exception, such as RuntimeError", 3),
    (
        "except-of-a-number",
        "try:\n    raise KeyError\nexcept 3:\n    pass\n",
        ParseError,
        "except takes exception classes",
        5,
    ),
]


@pytest.mark.parametrize(
    ("choosing", "error", "message", "line"), [c[1:] for c in NOT_CAUGHT], ids=[c[0] for c in NOT_CAUGHT]
)
def test_what_no_handler_catches_ends_the_load_at_its_line(choosing, error, message, line):
    with pytest.raises(error, match=re.escape(message)) as caught:
        load(_with_factor(choosing), device="meta")
    assert caught.value.loc.line == line
