"""User text on the web surface is shown as text: in messages, diagrams and links it never becomes
markup (HTML, links, images, colours, LaTeX) or code to run. The browser side is in
tests/browser/test_escaping.py."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hfuse import share, viz
from hfuse.dtypes import DataType
from hfuse.examples import get_example
from hfuse.ir import Expr, Fusion, Kind, Op, Output, Value
from hfuse.segment.model import Boundary, Group, SchedulerKind, Segmentation
from ui.literal import WORD_JOINER, literal

APP = str(Path(__file__).resolve().parent.parent / "app.py")
SEED = get_example("qkv_split").text
INJECTIONS = {
    "script tag": "<script>alert(1)</script>",
    "img onerror": "<img src=x onerror=alert(1)>",
    "markdown image": "![x](http://127.0.0.1:9/x.png)",
    "markdown link": "[click](javascript:alert(1))",
    "colour directive": ":red[injected]",
    "latex": "$$x^2$$",
    "emphasis and code": "**bold** _em_ `code` ~~gone~~",
    "autolinks": "www.example.com http://127.0.0.1:9/ a@example.com",
    "entity and table": "&lt;b&gt; | a | b |",
    "block starts": "text\n# heading\n- item\n1. first\n===\n> quote",
}
PAYLOAD = " ".join(v for k, v in INJECTIONS.items() if k != "block starts")
# What a markdown body may not contain unescaped: a `<` (HTML), `](` (link, image), a directive, math.
UNESCAPED_MARKUP = re.compile(r"(?<!\\)<|(?<!\\)\]\(|:red\[|\$\$|\*\*bold|(?<![\\\w])_em")


@pytest.mark.parametrize("text", INJECTIONS.values(), ids=INJECTIONS.keys())
def test_literal_escapes_every_opener_and_keeps_the_text(text):
    escaped = literal(text)
    shown = re.sub(r"\\(.)", r"\1", escaped).replace(WORD_JOINER, "")
    assert shown == text  # dropping the escapes and the invisible joiners gives the text back
    assert not re.search(r"://|www\.|\w@", escaped)  # no bare URL or address to link
    for line in escaped.splitlines():
        assert not UNESCAPED_MARKUP.search(line)
        assert not re.match(r"\s*([-+=>#]|\d+[.)])", line)  # no block can start


def test_literal_leaves_plain_prose_alone():
    text = "line 5, column 10: dims='x' is not valid (HFUSE_MAX_OPS=2000); 50% / 3?"
    assert literal(text) == text.replace(":", "\\:")


HEAD = """from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[4, 8], dtype=DataType.Float)
"""
SCRIPTS = {
    "comment": HEAD + f"    # {PAYLOAD}\n    T1 = fd.ops.exp(T0)\n    fd.add_output(T1)\n",
    "string in an op": HEAD + f"    T1 = fd.ops.cast(T0, dtype={PAYLOAD!r})\n    fd.add_output(T1)\n",
    "bad line": HEAD + f"    T1 = fd.ops.exp(T0 {PAYLOAD}\n",
}
LINKS = {
    "view option": {"f": share.encode_definition(SEED), "v": "1", "view": PAYLOAD},
    "format version": {"f": share.encode_definition(SEED), "v": PAYLOAD},
    "short id": {"s": PAYLOAD, "v": "1"},
}
MARKDOWN_ELEMENTS = ("markdown", "caption", "error", "warning", "info", "success", "header", "subheader")


@pytest.fixture(autouse=True)
def link_store(tmp_path, monkeypatch):
    monkeypatch.setenv("HFUSE_LINK_DB", str(tmp_path / "links.sqlite3"))


def open_app(params: dict[str, str], page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(page).run()
    return at


def markdown_bodies(at: AppTest) -> list[str]:
    return [element.value for kind in MARKDOWN_ELEMENTS for element in at.get(kind)]


def check_no_markup(at: AppTest) -> list[str]:
    """Every markdown body of the run, after checking none holds markup or may render HTML."""
    assert not at.exception
    assert not [m for m in at.get("markdown") if m.proto.allow_html]
    bodies = markdown_bodies(at)
    for body in bodies:
        assert not UNESCAPED_MARKUP.search(body), body
    return bodies


PAGES = {"editor": None, "IR": "app_pages/ir.py", "code": "app_pages/code.py"}


@pytest.mark.parametrize("page", PAGES.values(), ids=PAGES.keys())
@pytest.mark.parametrize("script", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_user_text_of_a_script_is_shown_as_text(script, page):
    at = open_app({"f": share.encode_definition(script), "v": "1"}, page)
    assert at.session_state["definition"] == script
    bodies = check_no_markup(at)
    errors = [e.value for e in at.error]
    if script is SCRIPTS["comment"]:
        assert not errors and not [b for b in bodies if "injected" in b]
    elif script is SCRIPTS["string in an op"]:
        assert [e for e in errors if literal(repr(PAYLOAD)) in e]
    else:
        assert [e for e in errors if "ParseError" in e]
        assert [c for c in at.code if PAYLOAD in c.value]  # the bad line, in a code block


@pytest.mark.parametrize("params", LINKS.values(), ids=LINKS.keys())
def test_user_text_of_a_link_is_shown_as_text(params):
    at = open_app(params)
    check_no_markup(at)
    messages = [m.value for m in [*at.error, *at.warning]]
    assert [m for m in messages if literal("<script>alert(1)</script>") in m]


# The IR never holds names like these (the loader names values T0, S0, ...), but a Fusion built by
# hand can, and reasons and notes are free text: the DOT must keep its structure whatever they say.
HOSTILE = {
    "input": 'in"];x[label="pwn',
    "middle": "<img src=x onerror=alert(1)>",
    "output": "a:b -> c\\l",
}


def hostile_fusion() -> tuple[Fusion, Segmentation]:
    x, y, z = HOSTILE.values()
    values = tuple(Value(n, Kind.TENSOR, DataType.Float, (4,), (1,)) for n in (x, y, z))
    exprs = (
        Expr(Op.EXP, (x,), (y,), (("note", '"}; <b>bold</b>'),)),
        Expr(Op.NEG, (y,), (z,)),
    )
    fusion = Fusion(values, (x,), exprs, (Output(z),))
    groups = (
        Group(0, SchedulerKind.POINTWISE, exprs[:1], (x,), (y,), note="<i>note</i>"),
        Group(1, SchedulerKind.POINTWISE, exprs[1:], (y,), (z,), note="x\\"),
    )
    return fusion, Segmentation("hfuse", groups, (Boundary(0, 1, y, "</title><script>alert(1)</script>"),))


DOT_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|->|[{}\[\];=,]|[A-Za-z_][A-Za-z0-9_]*|-?[0-9.]+')
KEYWORDS = {"digraph", "subgraph", "graph", "node", "edge"}


def dot_tokens(source: str) -> list[str]:
    """The tokens of a DOT source; fails on anything outside plain DOT (an HTML-like `<...>` string)."""
    tokens, at = [], 0
    while at < len(source):
        if source[at].isspace():
            at += 1
            continue
        token = DOT_TOKEN.match(source, at)
        assert token is not None, f"not plain DOT at {source[at : at + 40]!r}"
        tokens.append(token.group(0))
        at = token.end()
    return tokens


def label_lines(token: str) -> list[str]:
    """The lines a quoted DOT escString shows."""
    escapes = {"n": "\n", "\\": "\\", '"': '"'}
    text = re.sub(r"\\(.)", lambda m: escapes.get(m[1], "\\" + m[1]), token[1:-1])
    return text.split("\n")


SEGMENT_TEXTS = ("</title><script>alert(1)</script>", "<i>note</i>")  # a boundary's reason, a note
GRAPHS = {
    "IR": (lambda fusion, segmentation: viz.ir_graph(fusion), 1, ()),
    "segmentation": (viz.segmentation_graph, 1, SEGMENT_TEXTS),
    "comparison": (
        lambda fusion, segmentation: viz.compare_graph(
            ("<b>left</b>", fusion, segmentation), ("right", fusion, segmentation)
        ),
        2,
        (*SEGMENT_TEXTS, "<b>left</b>"),
    ),
}


@pytest.mark.parametrize("draw, sides, texts", GRAPHS.values(), ids=GRAPHS.keys())
def test_user_text_in_diagrams_is_escaped(draw, sides, texts):
    fusion, segmentation = hostile_fusion()
    tokens = dot_tokens(draw(fusion, segmentation).source)
    nodes = [
        i
        for i in range(1, len(tokens) - 1)
        if tokens[i + 1] == "[" and tokens[i] not in KEYWORDS and tokens[i - 1] != "->"
    ]
    assert (len(nodes), tokens.count("->")) == (5 * sides, 4 * sides)  # 3 tensors and 2 ops; 4 edges
    lines = [line for t in tokens if t.startswith('"') for line in label_lines(t)]
    for text in (*HOSTILE.values(), *texts):
        assert [line for line in lines if text in line], text
