"""Every page of the app driven by Streamlit's AppTest: examples, links, bad scripts, damaged links."""

import dataclasses
import re
from pathlib import Path

import pytest
import streamlit as st
from app_harness import PAGES, ROOT, TIMEOUT, errors, graph_sources, open_app, open_page
from streamlit.testing.v1 import AppTest

from hfuse import share, viz
from hfuse.errors import KernelError, LimitError, ParseError
from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.roofline import roofline_points
from hfuse.runtime.profile_model import FusionProfile, KernelProfile
from hfuse.service import worker
from hfuse.service.compile import failed_compile
from hfuse.service.measure import Timing
from hfuse.service.request import OutputSummary, RunResult
from ui import pipeline as ui_pipeline
from ui import views
from ui.literal import literal

SEED = get_example("qkv_split").text
BAD_SCRIPT = """from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[4, 8], dtype=DataType.Float)
    T1 = fd.ops.frobnicate(T0)
    fd.add_output(T1)
"""


def definition(at: AppTest) -> str:
    return at.session_state["definition"]


def headers(at: AppTest) -> list[str]:
    return [h.value for h in at.header]


def highlighted(at: AppTest) -> list[str]:
    """The keys of the navigation buttons drawn as the page on screen."""
    return [b.key for b in at.sidebar.button if b.key in PAGES.values() and b.proto.type == "primary"]


def use_plain_editor(at: AppTest) -> AppTest:
    at.toggle(key="plain_editor").set_value(True)
    return at.run()


def type_text(at: AppTest, text: str) -> AppTest:
    area = next(a for a in at.text_area if a.key.startswith("plain_editor_"))
    area.input(text)
    return at.run()


def test_a_fresh_session_shows_the_seed_and_its_link():
    at = open_app()
    assert not at.exception and not errors(at)
    assert definition(at) == SEED
    assert share.decode_definition(at.query_params["f"]) == SEED
    assert at.query_params["v"] == "1" and at.query_params["strategy"] == "hfuse"
    assert any("subgraph cluster_" in source for source in graph_sources(at))
    assert "Kernels: naive" in at.success[0].value


@pytest.mark.parametrize("page", PAGES, ids=[Path(p).stem for p in PAGES])
def test_every_page_opens_a_link_and_draws_without_errors(page):
    at = open_app(f=share.encode_definition(SEED), v="1")
    open_page(at, page)
    assert not at.exception and not errors(at)
    assert highlighted(at) == [PAGES[page]]
    assert definition(at) == SEED
    if page in ("app_pages/editor.py", "app_pages/ir.py", "app_pages/segments.py"):
        assert graph_sources(at), f"{page} draws no diagram"
    assert share.decode_definition(at.query_params["f"]) == SEED  # the link survives the page switch


def test_loading_an_example_replaces_the_text_and_can_be_undone():
    at = open_app()
    at.selectbox(key="example_choice").set_value("softmax").run()
    at.button(key="load_example").click().run()
    assert definition(at) == get_example("softmax").text
    assert share.decode_definition(at.query_params["f"]) == get_example("softmax").text
    at.button(key="restore_previous").click().run()
    assert definition(at) == SEED


def test_a_bad_script_shows_line_and_caret_and_keeps_the_text():
    at = type_text(use_plain_editor(open_app()), BAD_SCRIPT)
    assert not at.exception
    assert definition(at) == BAD_SCRIPT
    message = " ".join(errors(at))
    assert "line 5" in message and "frobnicate" in message
    assert any(
        line.strip() == "^" or line.rstrip().endswith("^") for c in at.code for line in c.value.splitlines()
    )
    for page in [*list(PAGES)[1:], "app_pages/editor.py"]:
        open_page(at, page)
        assert not at.exception and definition(at) == BAD_SCRIPT
    area = next(a for a in at.text_area if a.key.startswith("plain_editor_"))
    assert area.value == BAD_SCRIPT
    assert share.decode_definition(at.query_params["f"]) == BAD_SCRIPT


class StoppedCompiles:
    """A compile pool whose every compile was stopped at its time limit; counts the compiles asked for."""

    def __init__(self) -> None:
        self.asked = 0

    def compile(self, request):
        self.asked += 1
        return failed_compile(
            LimitError(
                "the compile was stopped after 60 s (HFUSE_COMPILE_TIMEOUT_S) while segmenting (naive); the "
                "worker process was discarded and a fresh one started. Set HFUSE_COMPILE_TIMEOUT_S to allow "
                "longer compiles, or try a smaller definition"
            )
        )


def test_a_compile_stopped_at_its_time_limit_is_shown_with_its_setting_and_not_asked_again(monkeypatch):
    stopped = StoppedCompiles()
    monkeypatch.setattr(ui_pipeline, "shared_compile_pool", lambda: stopped)
    text = SEED + "\n# a compile that is stopped\n"  # a text no other test compiles
    at = open_app(f=share.encode_definition(text), v="1")
    assert not at.exception
    assert "Parsed: 1 inputs, 9 ops, 3 outputs." in at.success[0].value
    (message,) = errors(at)
    assert "the compile was stopped after 60 s (this server's limit)" in message  # a visitor's terms
    for page in [*list(PAGES)[1:4], "app_pages/editor.py"]:  # the IR, Segments and Code pages too
        open_page(at, page)
        assert not at.exception and "stopped after 60 s" in " ".join(errors(at)), page
    assert stopped.asked == 1  # its outcome is cached like a compile's


DAMAGED_LINKS = {
    "not base64": ({"f": "%%%not-base64", "v": "1"}, "This link cannot be opened"),
    "cut short": ({"f": share.encode_definition(SEED)[:40], "v": "1"}, "cut short|does not decompress"),
    "newer version": ({"f": share.encode_definition(SEED), "v": "7"}, "format version"),
    "unknown short id": ({"s": "AAAAAAAAAAAA", "v": "1"}, "not known on this server"),
}


LOOP_SCRIPT = """from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[4, 8], dtype=DataType.Float)
    for i in range(2):
        fd.add_output(T0)
"""
DEL_SCRIPT = """from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[4, 8], dtype=DataType.Float)
    fd.add_output(T0)
    del T0
"""


def test_the_editor_shows_the_line_of_a_parse_error_from_its_loc():
    with pytest.raises(ParseError) as caught:
        load(DEL_SCRIPT, device="meta")
    loc = caught.value.loc
    at = type_text(use_plain_editor(open_app()), DEL_SCRIPT)
    assert not at.exception
    (message,) = errors(at)
    assert message.startswith(f"**ParseError** at line {loc.line}, column {loc.column}: del statements are")
    lines = DEL_SCRIPT.splitlines()
    shown = [f"{n:4d} | {lines[n - 1]}" for n in range(loc.line - 2, loc.line + 1)]
    caret = "     | " + " " * (loc.column - 1) + "^"
    assert [c.value for c in at.code] == ["\n".join([*shown, caret])]


def captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def test_a_script_with_a_loop_loads_in_the_editor():
    at = type_text(use_plain_editor(open_app()), LOOP_SCRIPT)
    assert not at.exception and not errors(at)
    assert at.success[0].value.startswith("Parsed: 1 inputs, 0 ops, 2 outputs.")
    assert "Read as: fusion definition script" in captions(at)


PRINTING_SCRIPT = LOOP_SCRIPT.replace(
    "    for i in range(2):", "    print('rank', T0.ndim)\n    for i in range(2):"
)


def test_what_a_script_prints_is_shown_under_the_editor():
    at = type_text(use_plain_editor(open_app()), PRINTING_SCRIPT)
    assert not at.exception and not errors(at)
    assert "The script printed:" in captions(at)
    assert [c.value.strip() for c in at.code] == ["rank 2"]


PASTED = ROOT / "tests" / "pasted"


@pytest.mark.parametrize(
    ("name", "layout"),
    [
        ("nvfuser_error_message", "nvFuser error repro"),
        ("thunder_repro", "Thunder repro"),
        ("python_definition_dump", "nvFuser python_definition dump"),
    ],
)
def test_the_editor_says_what_a_pasted_text_was_read_as(name, layout):
    at = type_text(use_plain_editor(open_app()), (PASTED / f"{name}.txt").read_text())
    assert not at.exception and not errors(at)
    assert f"Read as: {layout}" in captions(at)


def test_a_dump_declared_for_any_size_is_drawn_at_example_sizes_that_the_editor_names():
    text = (ROOT / "tests" / "unseen" / "thunder_traces_doc_printed_definition.py").read_text()
    at = type_text(use_plain_editor(open_app()), text)
    assert not at.exception and not errors(at)
    assert any(c.startswith("Note: ") and "each is taken as 8" in c for c in captions(at))
    assert graph_sources(at)


def test_a_segments_dump_shows_a_segment_choice_that_every_page_follows():
    text = (PASTED / "segments_dump.txt").read_text()
    at = type_text(use_plain_editor(open_app()), text)
    assert not at.exception and not errors(at)
    assert "Read as: nvFuser segments dump (3 segments)" in captions(at)
    choice = at.selectbox(key="segment_choice")
    assert choice.options == ["segmented group 0", "segmented group 1", "segmented group 8"]
    assert at.success[0].value.startswith("Parsed: 1 inputs, 1 ops, 1 outputs.")
    choice.set_value(2).run()
    assert not at.exception and not errors(at)
    assert at.success[0].value.startswith("Parsed: 1 inputs, 2 ops, 2 outputs.")
    open_page(at, "app_pages/ir.py")
    assert not at.exception and not errors(at)
    assert any("fd.ops.squeeze" in c.value for c in at.code)
    open_page(at, "app_pages/editor.py")
    assert at.selectbox(key="segment_choice").value == 2
    type_text(at, text + "\n")  # an edit keeps the choice while the text still holds that segment
    assert at.success[0].value.startswith("Parsed: 1 inputs, 2 ops, 2 outputs.")
    type_text(at, (PASTED / "thunder_repro.txt").read_text())
    assert not at.exception and not errors(at)
    assert "segment_choice" not in [box.key for box in at.selectbox]


@pytest.mark.parametrize("params, message", DAMAGED_LINKS.values(), ids=DAMAGED_LINKS.keys())
def test_a_damaged_link_shows_an_error_and_an_empty_editor(params, message):
    at = open_app(**params)
    assert not at.exception
    assert definition(at) == ""
    assert any(re.search(message, e) for e in errors(at))
    open_page(at, "app_pages/segments.py")
    assert not at.exception and "editor is empty" in at.info[0].value


def test_view_options_travel_in_the_link():
    at = open_app(f=share.encode_definition(SEED), v="1", compare="outputs", strategy="naive", bogus="1")
    open_page(at, "app_pages/segments.py")
    assert not at.exception
    assert at.query_params["compare"] == "outputs" and at.query_params["strategy"] == "naive"
    assert "bogus" not in at.query_params
    assert [w.value for w in at.warning if "Ignored unknown view options" in w.value]
    titles = [s.value for s in at.main.subheader]
    assert titles[:2] == ["naive, views allowed", "naive, contiguous outputs"]


def test_short_link_round_trip(link_store):
    at = open_app(f=share.encode_definition(SEED), v="1")
    at.button(key="make_short_link").click().run()
    link_id = share.short_id(SEED)
    assert at.query_params["s"] == link_id and "f" not in at.query_params
    assert link_store.get(link_id) == SEED
    again = open_app(s=link_id, v="1")
    assert not again.exception and definition(again) == SEED
    assert again.query_params["s"] == link_id


def test_editing_after_a_short_link_goes_back_to_a_long_link(link_store):
    link_id = link_store.put(SEED)
    at = type_text(use_plain_editor(open_app(s=link_id, v="1")), SEED + "\n")
    assert "s" not in at.query_params
    assert share.decode_definition(at.query_params["f"]) == SEED + "\n"


def click(at: AppTest, label: str) -> AppTest:
    next(b for b in at.button if b.label == label).click()
    return at.run()


def open_builder(at: AppTest) -> AppTest:
    at.session_state["builder_open"] = True  # as a click on its expander does
    return at.run()


def test_the_op_builder_writes_the_definition():
    at = open_builder(open_app(f=share.encode_definition(""), v="1"))
    assert definition(at) == ""
    at.text_input(key="builder_input_shape").input("4, 8")
    at = click(at, "Add input tensor")
    assert "fd.define_tensor(shape=[4, 8]" in definition(at)
    at.selectbox(key="builder_op").set_value("exp").run()
    at = click(at, "Add exp")
    assert "T1 = fd.ops.exp(T0)" in definition(at) and "fd.add_output(T1)" in definition(at)
    assert "Parsed: 1 inputs, 1 ops, 1 outputs" in at.success[0].value
    at.selectbox(key="builder_op").set_value("sum").run()
    at.text_input(key="builder_sum_dims").input("x")
    at = click(at, "Add sum")
    assert "dims='x' is not valid" in " ".join(errors(at))
    assert "fd.ops.sum" not in definition(at)


def test_the_builder_takes_a_dtype_offers_the_newest_tensor_and_calls_a_fusion_without_outputs_unfinished():
    at = open_builder(open_app(f=share.encode_definition(""), v="1"))
    at = click(at, "Add input tensor")
    assert not errors(at)
    assert [i.value for i in at.info][0].startswith("Being built: 1 inputs, 0 ops, no outputs yet")
    at.selectbox(key="builder_input_dtype").set_value("Half")
    at = click(at, "Add input tensor")
    assert (
        "T1 = fd.define_tensor(shape=[16, 128], contiguity=[True, True], dtype=DataType.Half"
        in definition(at)
    )
    operands = {t.label: t.value for t in at.text_input if t.key.startswith("builder_add_")}
    assert operands == {"a": "T1", "b": "T1"}  # the newest tensor
    at = click(at, "Add add")
    assert not errors(at) and "T2 = fd.ops.add(T1, T1)" in definition(at)
    assert "Parsed: 2 inputs, 1 ops, 1 outputs" in at.success[0].value


def test_a_fusion_too_large_to_draw_says_it_is_this_servers_limit(monkeypatch):
    monkeypatch.setenv("HFUSE_MAX_DIAGRAM_EXPRS", "4")
    st.cache_data.clear()  # diagrams of the seed drawn by earlier tests are cached
    at = open_app(f=share.encode_definition(SEED), v="1")
    assert not at.exception
    shown = " ".join(errors(at))
    assert "run hfuse on your own machine, where the limit can be raised" in shown and "HFUSE_" not in shown
    open_page(at, "app_pages/ir.py")
    assert not at.exception and not graph_sources(at)


def test_an_edit_sent_with_a_click_on_a_page_button_is_applied_and_the_page_opens():
    """The code editor's blur event, sent as the click takes the focus away, reaches the server in the
    same rerun as the click on a navigation button: the edit is applied, then the page switches."""
    at = open_app(f=share.encode_definition(SEED), v="1")
    edited = "# typed just before the click\n" + SEED
    at.session_state["code_editor_0"] = {"id": "blur0001", "type": "blur", "text": edited}
    open_page(at, "app_pages/run.py")
    assert not at.exception
    assert definition(at) == edited
    assert headers(at) == ["Run"] and highlighted(at) == ["nav_run"]
    assert share.decode_definition(at.query_params["f"]) == edited
    open_page(at, "app_pages/run.py")  # a click on the page on screen keeps it
    assert headers(at) == ["Run"]
    open_page(at, "app_pages/editor.py")
    assert headers(at) == ["Fusion definition"] and highlighted(at) == ["nav_editor"]
    assert definition(at) == edited


def test_an_edit_sent_after_a_click_on_a_page_button_keeps_the_new_page():
    """When the page is slow to switch, the code editor's typing pause is sent after the click, with the
    page the browser still shows (the Editor): the edit is applied and the clicked page stays."""
    at = open_app(f=share.encode_definition(SEED), v="1")
    open_page(at, "app_pages/run.py")
    edited = "# typed just before the click\n" + SEED
    at.session_state["code_editor_0"] = {"id": "change01", "type": "change", "text": edited}
    at.switch_page("app_pages/editor.py").run()  # the rerun the event sends, from the Editor
    assert not at.exception
    assert definition(at) == edited
    assert headers(at) == ["Run"] and highlighted(at) == ["nav_run"]
    at.switch_page("app_pages/editor.py").run()  # a rerun without an edit (the back button) moves
    assert headers(at) == ["Fusion definition"]


def test_a_plain_text_edit_sent_with_a_click_on_a_page_button_is_applied_and_the_page_opens():
    at = use_plain_editor(open_app(f=share.encode_definition(SEED), v="1"))
    next(a for a in at.text_area if a.key.startswith("plain_editor_")).input(BAD_SCRIPT)
    open_page(at, "app_pages/ir.py")
    assert not at.exception
    assert definition(at) == BAD_SCRIPT and headers(at) == ["Fusion IR"]


def open_run_page(**options: str) -> AppTest:
    at = open_app(f=share.encode_definition(SEED), v="1", **options)
    return open_page(at, "app_pages/run.py")


def test_run_checks_the_kernels_against_torch_on_the_interpreter(service):
    service.ahead = 2
    at = open_run_page(outputs="contiguous")
    assert "Triton's interpreter" in at.warning[0].value
    at.button(key="run").click().run()
    assert not at.exception and not errors(at)
    (request,) = service.requests
    assert (request.text, request.backend, request.alias_outputs, request.compare) == (
        SEED,
        "hfuse",
        False,
        False,  # no GPU: nothing to measure beside torch
    )
    assert "All 3 outputs match torch" in at.success[0].value
    assert at.status[0].state == "complete" and at.status[0].label.startswith("Done: first call")
    checks, kernels = (frame.value for frame in at.dataframe)
    assert list(checks["matches"]) == [True] * 3 and all(checks["first values"])
    assert len(kernels) >= 1 and set(kernels["time"]) == {"-"}  # not timed in the interpreter
    assert "Run log (server clock): asked" in " ".join(c.value for c in at.caption)


def test_a_run_in_the_interpreter_shows_its_progress_against_an_estimate(service):
    at = open_run_page(outputs="contiguous")
    at.button(key="run").click().run()
    assert not at.exception and not errors(at)
    (bar,) = at.get("progress")
    assert "s of about" in bar.proto.text and "(an estimate:" in bar.proto.text


def test_a_crashed_run_shows_an_error_and_the_next_run_works(service):
    service.failures = [
        KernelError("the worker process died (signal 11, SIGSEGV) while launching; a fresh one started")
    ]
    at = open_run_page(outputs="contiguous")
    at.button(key="run").click().run()
    assert not at.exception
    assert at.status[0].state == "error"
    assert any("KernelError" in e and "worker process died" in e for e in errors(at))
    assert not at.dataframe  # no report of an earlier run is left on screen
    at.button(key="run").click().run()
    assert not at.exception and not errors(at)
    assert "All 3 outputs match torch" in at.success[0].value


def timed_profile(backend: str, segments: int, time_ms: float) -> FusionProfile:
    kernels = tuple(
        KernelProfile(
            f"hfuse_pointwise_g{i}",
            i,
            "pointwise",
            (96,),
            4,
            time_ms / segments,
            12.0,
            2_000_000,
            2_000_000,
            4_000_000 / (time_ms / segments) / 1e6,
            50.0,
        )
        for i in range(segments)
    )
    return FusionProfile(
        backend,
        "NVIDIA H200",
        segments,
        kernels,
        time_ms,
        156.4537,
        40.0,
        2_000_000 * segments,
        2_000_000 * segments,
        2000.0,
        41.5,
        4814.0,
        True,
        True,
        0.0,
        cache_hit=True,
    )


def _timing(candidate: str, kernels: int, kernel_us: float, spread: float) -> Timing:
    rounds = (kernel_us - spread, kernel_us, kernel_us + spread)
    return Timing(candidate, kernels, kernel_us, rounds, kernel_us * 0.95, kernel_us + 14.0, 50_331_648)


def test_a_run_that_differs_from_torch_says_where_in_full():
    at = open_app(f=share.encode_definition(SEED), v="1", outputs="contiguous")
    message = (
        "3 of 4096 elements are outside rtol 1e-05, atol 1e-05; first at [0, 1, 2, 3]: got 1.5, expected 1"
    )
    result = RunResult(
        outputs=(
            OutputSummary("T7", (2, 4, 16, 32), "Float", (0.5,), True, 0.0, "max abs error 0"),
            OutputSummary("T8", (2, 4, 16, 32), "Float", (1.5,), False, 0.5, message),
        ),
        profile=timed_profile("hfuse", 1, 0.018),
        first_call_ms=912.3,
    )
    at.session_state["run_report"] = ((SEED, "hfuse", "contiguous", 0), result)
    open_page(at, "app_pages/run.py")
    assert not at.exception
    (error,) = errors(at)
    assert error.startswith("1 of 2 outputs differ from torch.") and "T8" in error and "T7" not in error
    assert f"- **T8**: {literal(message)}" in error  # the whole message, shown as itself


def test_a_gpu_report_shows_times_bandwidth_and_torch_beside_it():
    at = open_app(f=share.encode_definition(SEED), v="1", outputs="contiguous")
    result = RunResult(
        outputs=(OutputSummary("T7", (2, 4, 16, 32), "Float", (0.5, -1.25), True, 0.0, "max abs error 0"),),
        profile=timed_profile("hfuse", 1, 0.018),
        first_call_ms=912.3,
        first_call_stages=(("load script", 40.0), ("codegen", 2.0), ("first launches", 700.0)),
        comparison=(
            _timing("hfuse", 1, 18.0, 0.4),
            _timing("eager", 3, 31.0, 2.0),
            _timing("torch.compile", 3, 37.0, 9.0),
            _timing("clone", 1, 17.5, 0.2),
        ),
    )
    at.session_state["run_report"] = ((SEED, "hfuse", "contiguous", 0), result)
    open_page(at, "app_pages/run.py")
    assert not at.exception and not errors(at)
    checks, kernels, beside = (frame.value for frame in at.dataframe)
    assert list(checks["first values"]) == ["0.5, -1.25"]
    assert list(kernels["time"]) == ["18.0 us"] and list(kernels["% of peak"]) == ["50.0 %"]
    assert list(kernels["compile"]) == ["cached"]
    assert list(beside["candidate"]) == ["hfuse (hfuse)", "eager", "torch.compile", "clone"]
    assert list(beside["kernels"]) == [1, 3, 3, 1]
    assert list(beside["spread"])[2] == "28.0 us - 46.0 us"  # a noisy figure looks noisy
    assert list(beside["vs hfuse"]) == ["1.00x", "1.72x", "2.06x", "0.97x"]
    assert list(beside["% of clone"])[0] == "97.2"
    assert list(beside["host per call"])[0] == "32.0 us"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["First call"] == "912 ms" and metrics["Host per call"] == "32.0 us"
    assert metrics["Bandwidth"] == "2,000.0 GB/s"
    assert all(m.proto.help for m in at.metric), "every total says what it counts"
    assert at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"), "no bandwidth chart"
    assert any("clone of a buffer of the bytes" in c.value for c in at.caption)


def test_a_gpu_run_draws_its_kernels_and_whole_calls_under_the_roofs():
    profile = timed_profile("hfuse", 2, 0.020)
    kernels = tuple(dataclasses.replace(k, flops=1_000_000) for k in profile.segment_profiles)
    profile = dataclasses.replace(profile, segment_profiles=kernels, flops=2_000_000, peak_flops=66.9e12)
    comparison = (
        _timing("hfuse", 2, 20.0, 0.4),
        _timing("eager", 3, 31.0, 2.0),
        _timing("clone", 1, 17.5, 0.2),
    )
    points = roofline_points(profile, comparison)
    assert [(p.label, p.candidate) for p in points] == [
        ("hfuse_pointwise_g0", "hfuse kernels"),
        ("hfuse_pointwise_g1", "hfuse kernels"),
        ("whole call", "hfuse"),
        ("whole call", "eager"),  # the clone computes nothing: not a point
    ]
    assert points[0].intensity == pytest.approx(1_000_000 / 4_000_000)
    assert points[0].gops == pytest.approx(1_000_000 / 10e-6 / 1e9)  # each kernel takes 0.010 ms
    assert points[3].intensity == pytest.approx(2_000_000 / 50_331_648)
    assert points[3].gops == pytest.approx(2_000_000 / 31e-6 / 1e9)

    at = open_app(f=share.encode_definition(SEED), v="1", outputs="contiguous")
    outputs = (OutputSummary("T7", (2, 4, 16, 32), "Float", (0.5,), True, 0.0, "max abs error 0"),)
    result = RunResult(outputs=outputs, profile=profile, comparison=comparison)
    at.session_state["run_report"] = ((SEED, "hfuse", "contiguous", 0), result)
    open_page(at, "app_pages/run.py")
    assert not at.exception and not errors(at)
    assert any(m.value.startswith("**Roofline**") for m in at.markdown)
    charts = [*at.get("arrow_vega_lite_chart"), *at.get("vega_lite_chart")]
    assert len(charts) >= 2  # the bandwidth per kernel, and the roofline
    assert any('"float32 compute"' in chart.proto.spec for chart in charts)  # the roof reaches the ridge


@pytest.fixture(scope="module")
def real_service():
    """The process's run service with its worker process, stopped when this module's tests are done."""
    yield worker.shared_service()
    worker.shared_service().close()


def test_a_run_goes_through_the_worker_process(real_service):
    at = open_run_page(outputs="contiguous")
    at.button(key="run").click().run(timeout=TIMEOUT)
    assert not at.exception and not errors(at)
    assert "All 3 outputs match torch" in at.success[0].value
    assert real_service.worker_pid is not None


def test_a_run_exports_as_json_its_kernels_as_csv_and_as_one_html_report(service):
    at = open_run_page(outputs="contiguous")
    at.button(key="run").click().run()
    assert not at.exception and not errors(at)
    labels = [b.label for b in at.download_button]
    assert labels == ["Run as JSON", "Kernels as CSV", "Report as HTML"]


@pytest.mark.parametrize(("strategy", "extra"), [("naive", True), ("hfuse", False)])
def test_bytes_moved_are_the_kernels_own_beside_the_fusions(service, strategy, extra):
    softmax = share.encode_definition(get_example("softmax").text)
    at = open_page(open_app(f=softmax, v="1", strategy=strategy), "app_pages/run.py")
    at.button(key="run").click().run()
    moved = next(m for m in at.metric if m.label == "Bytes moved")
    # naive's kernels pass tensors between them through memory; hfuse's one kernel moves the fusion's own
    assert ("between kernels" in moved.delta) is extra


def test_the_ir_page_steps_through_the_compile_with_each_change():
    at = open_page(open_app(f=share.encode_definition(get_example("softmax").text), v="1"), "app_pages/ir.py")
    assert not at.exception and not errors(at)
    steps = at.radio(key="pipeline_step")
    labels = list(steps.options)  # as the page words them
    assert labels[0] == "1. as defined" and any(label.endswith("segmentation (hfuse)") for label in labels)
    assert labels[-1].startswith(f"{len(labels)}. kernel hfuse_")
    steps.set_value(len(labels) - 1).run()
    assert "@triton.jit" in at.code[-1].value


def test_after_a_run_the_segmentation_is_shaded_by_each_segments_share(service):
    softmax = share.encode_definition(get_example("softmax").text)
    at = open_page(open_app(f=softmax, v="1", strategy="naive"), "app_pages/run.py")
    at.button(key="run").click().run()
    assert not at.exception and not errors(at)
    open_page(at, "app_pages/segments.py")
    assert not at.exception
    assert any("Shaded by your last run" in c.value for c in at.caption)
    naive = next(source for source in graph_sources(at) if "% of the bytes" in source)
    assert naive.count("% of the bytes") == naive.count("kernel ") >= 2  # every kernel of naive's cut
    assert not any(fill in naive for fill, _ in viz.KIND_COLORS.values())  # shaded, not by kind


def test_every_page_says_which_fusion_it_shows():
    at = open_app(f=share.encode_definition(SEED), v="1")
    shown = [c.value for c in at.sidebar.caption if c.value.startswith("Every page shows this fusion")]
    assert shown and "QKV split" in shown[0]
    at = open_app(f=share.encode_definition(SEED.split("\n", 1)[1]), v="1")  # no leading comment
    shown = [c.value for c in at.sidebar.caption if c.value.startswith("Every page shows this fusion")]
    assert shown == ["Every page shows this fusion: 1 inputs, 9 ops, 3 outputs"]


def test_a_segment_opens_in_the_editor_as_a_definition_of_its_own():
    softmax = share.encode_definition(get_example("softmax").text)
    at = open_page(open_app(f=softmax, v="1", strategy="naive"), "app_pages/code.py")
    exported = next(c.value for c in at.code if "FusionDefinition" in c.value)
    at.button(key="open_segment").click().run()
    assert not at.exception
    assert headers(at) == ["Fusion definition"] and definition(at).strip() == exported.strip()


CUMSUM = """
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.cumsum(t0, dim=1))
"""


def test_the_code_page_offers_the_fusion_as_a_benchmark_script_where_its_kernels_run_it_all():
    softmax = share.encode_definition(get_example("softmax").text)
    at = open_page(open_app(f=softmax, v="1"), "app_pages/code.py")
    assert not at.exception
    assert "Benchmark script" in [b.label for b in at.download_button]
    at = open_page(open_app(f=share.encode_definition(CUMSUM), v="1"), "app_pages/code.py")
    assert not at.exception
    assert "Benchmark script" not in [b.label for b in at.download_button]
    assert any(c.value.startswith("No benchmark script: segments") for c in at.caption)


def test_the_code_page_shows_the_lines_of_an_ir_value():
    softmax = share.encode_definition(get_example("softmax").text)
    at = open_page(open_app(f=softmax, v="1"), "app_pages/code.py")
    chooser = next(s for s in at.selectbox if s.label == "Show the lines of")
    chooser.set_value("T3").run()
    assert not at.exception
    (block,) = at.html
    marked = re.findall(
        f'<span style="background:{re.escape(views.MARKED_BACKGROUND)}">(.*?)</span>\n',
        block.proto.body + "\n",
    )
    assert any("t3 = (t0 - t1)" in line for line in marked) and any("# T3 = fd.ops.sub" in m for m in marked)


def test_the_code_page_shows_tritons_lowering_of_a_kernel_for_an_h200():
    """Compiled on request for sm_90, on any machine: TTIR, TTGIR, LLVM IR and PTX of each launch."""
    softmax = share.encode_definition(get_example("softmax").text)
    at = open_page(open_app(f=softmax, v="1"), "app_pages/code.py")
    assert not [t for t in at.tabs if t.label.startswith("PTX of")]
    at.button(key="compile_triton_irs").click().run(timeout=120)
    assert not at.exception and not errors(at)
    assert [t.label for t in at.tabs if " of hfuse_" in t.label] == [
        "TTIR of hfuse_normalization_g0", "TTGIR of hfuse_normalization_g0",
        "LLVM IR of hfuse_normalization_g0", "PTX of hfuse_normalization_g0",
    ]  # fmt: skip
    texts = [c.value for c in at.code]
    assert any("tt.func public @hfuse_normalization_g0" in t for t in texts)
    assert any(".target sm_90" in t for t in texts)
    (held,) = [c.value for c in at.caption if "on an SM of an H200" in c.value]
    assert re.search(
        r"^hfuse_normalization_g0 on an SM of an H200: \d+ registers a thread, .* of 8 warps an SM", held
    )


def test_a_definition_without_inputs_shows_the_inputs_to_add_as_code():
    """Its -1 extents cannot be the example 8: the reshape needs 15 elements."""
    bare = "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n"
    bare += "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float)\n"
    bare += "    fd.add_output(fd.ops.reshape(T0, new_shape=[3, 5]))\n"
    at = open_app(f=share.encode_definition(bare), v="1")
    assert any("symbolic extents" in e for e in errors(at))
    assert any(c.value.startswith("inputs = [\n    torch.randn(8, 8, dtype=torch.float32") for c in at.code)


def test_the_segmentation_page_explains_its_boundaries_and_refusals_in_tables_that_wrap():
    softmax = get_example("softmax").text
    at = open_page(open_app(f=share.encode_definition(softmax), v="1"), "app_pages/segments.py")
    assert not at.exception and not at.dataframe
    naive = compile_fusion(load(softmax, device="meta").fusion, strategy="naive", alias_outputs=True)
    reasons = [r.reason for r in viz.boundary_rows(naive.scheduled, naive.segmentation)]
    boundaries = next(t.value for t in at.table if "reason" in t.value.columns and "edge" in t.value.columns)
    assert list(boundaries["reason"]) == reasons
    (refused,) = (t.value for t in at.table if list(t.value.columns) == ["first", "second", "reason"])
    assert list(refused["reason"]) == [r.reason for r in naive.segmentation.refused]


@pytest.mark.skipif(not viz.dot_available(), reason="needs the graphviz `dot` binary")
def test_a_diagram_zoomed_in_scrolls_at_graphvizs_size_times_the_zoom():
    qk_norm = share.encode_definition(get_example("qk_norm").text)
    at = open_page(open_app(f=qk_norm, v="1", strategy="naive"), "app_pages/segments.py")
    naive_fitted, hfuse_fitted = graph_sources(at)
    at.segmented_control(key="left_zoom").set_value("150%").run()
    assert not at.exception
    assert graph_sources(at) == [hfuse_fitted]
    (zoomed,) = at.get("iframe")
    size = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')
    natural = [float(n) for n in size.search(ui_pipeline.svg_of(naive_fitted)).groups()]
    shown = [float(n) for n in size.search(zoomed.proto.srcdoc).groups()]
    assert shown == pytest.approx([1.5 * n for n in natural], abs=0.1)
    at.segmented_control(key="left_zoom").set_value(views.FIT).run()
    assert graph_sources(at) == [naive_fitted, hfuse_fitted]


def test_the_ir_page_compares_this_definition_with_a_pasted_link():
    """A link pasted into the comparison: its definition's IR, kernels and kernel source beside this one's."""
    softmax = get_example("softmax").text
    at = open_page(open_app(f=share.encode_definition(SEED), v="1"), "app_pages/ir.py")
    pasted = f"http://localhost:8501/ir?f={share.encode_definition(softmax)}&v=1"
    at.text_area(key="compared_definition").set_value(pasted).run()
    assert not at.exception and not errors(at)
    counts = next(f.value for f in at.dataframe if "kernels in this one" in f.value.columns)
    assert (
        dict(zip(counts["segmenter"], counts["kernels in the other definition"], strict=True))["naive"] == 5
    )
    assert dict(zip(counts["segmenter"], counts["kernels in this one"], strict=True)) == {
        "naive": 3,
        "hfuse": 0,
    }
    diffs = [c.value for c in at.code if c.value.startswith("--- in the other definition")]
    assert len(diffs) == 2 and "-@triton.jit" in diffs[1]  # the IR, then the kernels' source


def test_a_link_carries_the_ir_pages_comparison():
    """What the visitor pastes to compare goes into the page's link; opening that link shows the same
    comparison, open."""
    softmax = get_example("softmax").text
    at = open_page(open_app(f=share.encode_definition(SEED), v="1"), "app_pages/ir.py")
    at.text_area(key="compared_definition").set_value(softmax).run()
    assert share.decode_definition(at.query_params["c"]) == softmax
    shared = open_page(open_app(**{key: at.query_params[key] for key in at.query_params}), "app_pages/ir.py")
    assert not shared.exception and not errors(shared)
    assert shared.text_area(key="compared_definition").value == softmax
    assert next(e for e in shared.expander if e.label == "Compare with another definition").proto.expanded
    counts = next(f.value for f in shared.dataframe if "kernels in this one" in f.value.columns)
    assert (
        dict(zip(counts["segmenter"], counts["kernels in the other definition"], strict=True))["naive"] == 5
    )
    cleared = shared.text_area(key="compared_definition").set_value("").run()
    assert "c" not in cleared.query_params


def test_the_ir_page_shows_what_the_visitors_edits_changed():
    at = open_app(f=share.encode_definition(SEED), v="1")
    edited = SEED.replace("fd.add_output(T2_slice3)", "fd.add_output(fd.ops.exp(T2_slice3))")
    at.session_state["code_editor_0"] = {"id": "edit0001", "type": "blur", "text": edited}
    open_page(at, "app_pages/ir.py")
    assert not at.exception and definition(at) == edited
    assert "Your edits" in [s.value for s in at.subheader]
    counts = next(frame.value for frame in at.dataframe if "kernels now" in frame.value.columns)
    before = dict(zip(counts["segmenter"], counts["kernels before your edits"], strict=True))
    now = dict(zip(counts["segmenter"], counts["kernels now"], strict=True))
    assert before == {"naive": 3, "hfuse": 0} and now["hfuse"] >= 1
    diff = next(c.value for c in at.code if c.value.startswith("--- before your edits"))
    assert "+    T10 = fd.ops.exp(T9)" in diff
