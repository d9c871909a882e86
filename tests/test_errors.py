"""One location convention: every error class renders its reason, loc and expr the same way, in one place."""

import pickle

import pytest

from hfuse import errors
from hfuse.errors import DefinitionError, HfuseError, KernelError, Loc, UnsupportedError, loc_of

CLASSES = sorted(
    (c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, HfuseError)),
    key=lambda c: c.__name__,
)
REASON = "shapes [4] and [5] do not broadcast; make them equal"
SOURCE = "    T2 = fd.ops.add(T0, T1)"
EXPR = "T2 = add(T0, T1)"

# (id, loc, expr, the message with {expr} standing for the class's wording of the expr)
MESSAGES = [
    ("reason-only", None, None, REASON),
    ("loc-without-text", Loc(3, 10), None, f"line 3, column 10: {REASON}"),
    ("loc", Loc(3, 10, SOURCE), None, f"line 3, column 10: {REASON}\n    {SOURCE}\n             ^"),
    ("loc-at-column-1", Loc(1, 1, "import os"), None, f"line 1, column 1: {REASON}\n    import os\n    ^"),
    ("expr", None, EXPR, f"{{expr}}: {REASON}"),
    (
        "loc-and-expr",
        Loc(3, 10, SOURCE),
        EXPR,
        f"line 3, column 10, {{expr}}: {REASON}\n    {SOURCE}\n             ^",
    ),
]


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
@pytest.mark.parametrize(("loc", "expr", "message"), [m[1:] for m in MESSAGES], ids=[m[0] for m in MESSAGES])
def test_every_error_class_renders_loc_and_expr_the_same_way(cls, loc, expr, message):
    err = cls(REASON, loc=loc, expr=expr)
    assert isinstance(err, HfuseError)
    assert (err.reason, err.loc, err.expr) == (REASON, loc, expr)
    wording = cls.expr_wording.format(EXPR)
    assert str(err) == message.format(expr=wording)


# The two wordings of an expr, in the texts users and tests know.
WORDINGS = [
    (DefinitionError, "in T2 = add(T0, T1)"),
    (KernelError, "generating `T2 = add(T0, T1)`"),
    (UnsupportedError, "generating `T2 = add(T0, T1)`"),
]


@pytest.mark.parametrize(("cls", "wording"), WORDINGS, ids=[w[0].__name__ for w in WORDINGS])
def test_an_expr_is_named_as_the_error_it_is_in_or_the_kernel_code_being_generated(cls, wording):
    assert str(cls(REASON, expr=EXPR)) == f"{wording}: {REASON}"


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_an_error_pickles_with_its_loc_and_expr(cls):
    err = cls(REASON, loc=Loc(3, 10, SOURCE), expr=EXPR)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is cls
    assert (str(again), vars(again)) == (str(err), vars(err))


def test_a_recorded_position_becomes_a_loc_without_text():
    assert loc_of((4, 2)) == Loc(4, 2, "")
    assert loc_of(None) is None
