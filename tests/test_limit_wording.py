"""The app words the engine's limit errors for a visitor: what the limit is, and what a visitor can do."""

import pytest
from test_limits import API_LIMITS

from hfuse import FusionDefinition, settings
from hfuse.errors import LimitError, LinkError, ParseError
from hfuse.loader import load
from ui.limit_wording import ELSEWHERE, visitor_text

NESTED = """
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[4], contiguity=[True], dtype=DataType.Float)
    fd.add_output(fd.ops.mul(t0, ((((((2)))))) + 1))
"""


def raised(setting, value, make, monkeypatch) -> LimitError:
    monkeypatch.setenv(setting.env, str(value))
    with pytest.raises(LimitError) as caught:
        make()
    return caught.value


def api_definition(define):
    def make():
        with FusionDefinition() as fd:
            define(fd)
        fd.fusion()

    return make


CASES = [(case[0], case[1], case[2], api_definition(case[3])) for case in API_LIMITS] + [
    ("nesting", settings.MAX_NESTING, 3, lambda: load(NESTED)),
    ("script-chars", settings.MAX_SCRIPT_CHARS, 20, lambda: load(NESTED)),
]


@pytest.mark.parametrize(("setting", "value", "make"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_limits_setting_is_named_as_this_servers_limit_with_what_a_visitor_can_do(
    setting, value, make, monkeypatch
):
    err = raised(setting, value, make, monkeypatch)
    assert setting.env in str(err)  # the engine's message names its setting, for the CLI and the package

    worded = visitor_text(err, str(err))

    assert "HFUSE_" not in worded
    assert ELSEWHERE in worded or "this server's limit" in worded


def test_the_wording_of_each_kind_of_mention():
    cases = {
        "simplify the expression or set HFUSE_MAX_NESTING": f"simplify the expression or {ELSEWHERE}",
        "the limit is 4 (set HFUSE_MAX_OPS)": f"the limit is 4 ({ELSEWHERE})",
        "the limit is 1 (set HFUSE_MAX_OP_INPUTS to allow more: compile time grows with its square)": (
            f"the limit is 1 ({ELSEWHERE}: compile time grows with its square)"
        ),
        "stopped after 60 s (HFUSE_COMPILE_TIMEOUT_S) while compiling; Set HFUSE_COMPILE_TIMEOUT_S to allow "
        "longer compiles, or make it smaller": (
            "stopped after 60 s (this server's limit) while compiling; Run hfuse on your own machine, where "
            "the limit can be raised, or make it smaller"
        ),
        "up to HFUSE_MAX_SHORT_LINK_BYTES=262144 bytes. Share it with a long link, or raise that setting.": (
            f"up to this server's limit of 262144 bytes. Share it with a long link, or {ELSEWHERE}."
        ),
    }
    for engine, app in cases.items():
        assert visitor_text(LimitError(engine), engine) == app
        assert visitor_text(LinkError(engine), engine) == engine  # not a limit: left as it is
        assert visitor_text(ParseError(engine), engine) == engine
