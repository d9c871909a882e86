"""The `hfuse` command line, run in-process through main(argv)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import torch

from hfuse.examples import get_example
from hfuse.printer import print_fusion
from hfuse.runtime.profile_model import FusionProfile, KernelProfile
from hfuse.tools.cli import INTERPRETER_BANNER, format_kernel_table, main

ADD = get_example("add")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_ir_prints_the_normalized_definition(capsys):
    from hfuse import load

    code, out, err = run_cli(capsys, "ir", str(ADD.path))
    assert (code, err) == (0, "")
    assert out == print_fusion(load(ADD.text, device="cpu").fusion) + "\n"
    assert "add(" in out


@pytest.mark.parametrize(
    ("example", "shapes", "dtypes"),
    [
        ("add", [[32, 64]], ["float32"]),
        ("qkv_split", [[2, 4, 16, 32]] * 3, ["float32"] * 3),
        ("outer_reduction", [[96], [96]], ["float32", "float32"]),
    ],
    ids=["add", "qkv_split", "outer_reduction"],
)
def test_run_eager_json_reports_outputs_and_validation(capsys, example, shapes, dtypes):
    code, out, err = run_cli(
        capsys, "run", str(get_example(example).path), "--backend", "eager", "--json", "--device", "cpu"
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["backend"] == "eager" and report["device"] == "cpu"
    assert report["kernels"] == []
    assert report["validated"] is True and report["max_abs_error"] == 0
    assert [o["shape"] for o in report["outputs"]] == shapes
    assert [o["dtype"] for o in report["outputs"]] == dtypes


def test_run_eager_table_says_no_kernels(capsys):
    code, out, _ = run_cli(capsys, "run", str(ADD.path), "--backend", "eager", "--device", "cpu")
    assert code == 0
    assert "op by op" in out and "no kernels" in out
    assert "[32, 64]" in out and "matches the torch reference" in out


def test_run_save_writes_inputs_and_outputs(capsys, tmp_path):
    target = tmp_path / "run.pt"
    code, out, _ = run_cli(
        capsys, "run", str(ADD.path), "--backend", "eager", "--device", "cpu", "--save", str(target)
    )
    assert code == 0 and str(target) in out
    saved = torch.load(target)
    a, b = saved["inputs"]
    torch.testing.assert_close(saved["outputs"][0], a + b)


def test_run_hfuse_in_the_interpreter_lists_kernels(capsys, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    code, out, err = run_cli(capsys, "run", str(ADD.path), "--device", "cpu", "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["validated"] is True
    assert report["times_meaningful"] is False
    launched = [k for k in report["kernels"] if k["launches_kernel"]]
    assert len(launched) == 1
    assert launched[0]["input_bytes"] == 2 * 32 * 64 * 4 and launched[0]["output_bytes"] == 32 * 64 * 4


def test_run_takes_a_scripts_vector_input_as_its_scalars(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    script = tmp_path / "vector.py"
    script.write_text(
        "import torch\nfrom nvfuser import FusionDefinition\n\n"
        "inputs = [torch.randn(2, 3, 4), [6, 4]]\n\n"
        "with FusionDefinition() as fd:\n"
        "    t0 = fd.from_pytorch(inputs[0])\n"
        "    fd.add_output(fd.ops.reshape(t0, fd.define_vector(2)))\n\n"
        "fd.execute(inputs)\n"
    )
    code, out, err = run_cli(capsys, "run", str(script), "--device", "cpu", "--json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["validated"] is True and report["outputs"][0]["shape"] == [6, 4]


def test_run_of_a_fusion_writing_into_its_input_matches_the_reference(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    script = tmp_path / "in_place.py"
    script.write_text(
        "import torch\nfrom nvfuser import FusionDefinition\n\n"
        "inputs = [torch.ones(4, 4)]\n\n"
        "with FusionDefinition() as fd:\n"
        "    t0 = fd.from_pytorch(inputs[0])\n"
        "    t1 = fd.ops.add(t0, 2.0)\n"
        "    fd.add_output(t1, alias_input=t0)\n"
        "    fd.add_output(fd.ops.mul(t1, 3.0))\n\n"
        "fd.execute(inputs)\n"
    )
    for argv in (
        ["run", str(script), "--device", "cpu"],
        ["report", str(script), "-o", str(tmp_path / "r.html")],
    ):
        code, out, err = run_cli(capsys, *argv)
        assert (code, err) == (0, ""), out
    assert (
        "validation: matches the torch reference" in run_cli(capsys, "run", str(script), "--device", "cpu")[1]
    )


def test_run_of_a_definition_declared_for_any_size_says_which_sizes_it_took(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    script = tmp_path / "dump.py"
    script.write_text(
        "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n"
        "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
        "    fd.add_output(fd.ops.exp(T0))\n"
    )
    code, out, err = run_cli(capsys, "run", str(script), "--device", "cpu")
    assert (code, err) == (0, "") and out.startswith("note: the definition declares symbolic extents")
    code, out, err = run_cli(capsys, "run", str(script), "--device", "cpu", "--json")
    report = json.loads(out)
    assert "each is taken as 8" in report["note"] and report["outputs"][0]["shape"] == [8, 8]


BAD_SCRIPT = """import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(t0) + open("x"))

inputs = [torch.randn(8)]
"""


@pytest.mark.parametrize(
    ("command", "script", "expected"),
    [
        ("ir", None, r"cannot read .*missing\.py: No such file"),
        ("run", None, r"cannot read .*missing\.py: No such file"),
        ("ir", BAD_SCRIPT, r"line 6, column \d+:(.|\n)*open\(\"x\"\)\)\n +\^"),
        ("run", BAD_SCRIPT, r"line 6, column \d+:(.|\n)*\^"),
    ],
    ids=["ir-missing-file", "run-missing-file", "ir-bad-script", "run-bad-script"],
)
def test_user_errors_exit_2_with_the_message_and_no_traceback(capsys, tmp_path, command, script, expected):
    path = tmp_path / "missing.py"
    if script is not None:
        path = tmp_path / "bad.py"
        path.write_text(script)
    code, out, err = run_cli(capsys, command, str(path), *(["--device", "cpu"] if command == "run" else []))
    assert code == 2 and out == ""
    assert err.startswith(f"hfuse {command}: ")
    assert "Traceback" not in err
    assert re.search(expected, err), err


def test_examples_lists_the_gallery(capsys):
    code, out, _ = run_cli(capsys, "examples", "--subset", "large")
    assert code == 0
    assert "qkv_split" in out and "[16,1024,12288]" in out
    assert "14 large examples" in out


@pytest.mark.parametrize(
    ("subset", "shape"),
    [("extended", "[96,40]"), ("extended-decode", "[2048,4096]"), ("extended-large", "[16384,4096]")],
)
def test_examples_lists_the_extended_suite(capsys, subset, shape):
    code, out, _ = run_cli(capsys, "examples", "--subset", subset)
    assert code == 0
    assert f"Bias gradient (bf16 -> fp32): sum(x.float(), dim=0) of a {shape} bf16 gradient" in out
    assert f"23 {subset} examples" in out


def _kernel(name: str, time_ms: float | None, launches: bool = True) -> KernelProfile:
    return KernelProfile(
        name=name,
        segment_id=0,
        scheduler="pointwise" if launches else "alias",
        grid=(128, 1, 1),
        num_warps=4,
        time_ms=time_ms,
        compile_time_ms=1.0,
        input_bytes=2_000_000,
        output_bytes=1_000_000,
        effective_bandwidth_gbs=None if time_ms is None else 3e6 / (time_ms * 1e6),
        percentage_peak_bandwidth=None if time_ms is None else 50.0,
        launches_kernel=launches,
    )


def _profile(kernels: tuple[KernelProfile, ...], meaningful: bool) -> FusionProfile:
    time_ms = None if not meaningful else sum(k.time_ms for k in kernels if k.time_ms)
    return FusionProfile(
        backend="hfuse",
        device="cuda",
        segments=sum(k.launches_kernel for k in kernels),
        segment_profiles=kernels,
        kernel_time_ms=time_ms,
        host_time_ms=0.5,
        compile_time_ms=12.0,
        input_bytes=2_000_000,
        output_bytes=1_000_000,
        effective_bandwidth_gbs=None if time_ms is None else 3e6 / (time_ms * 1e6),
        percentage_peak_bandwidth=None if time_ms is None else 50.0,
        peak_bandwidth_gbs=4814.0,
        times_meaningful=meaningful,
        validated=True,
        max_abs_error=0.0,
    )


@pytest.mark.parametrize(
    ("kernels", "meaningful", "present", "absent"),
    [
        (
            (_kernel("fused_0", 0.002),),
            True,
            ["fused_0", "128x1x1", "2.0", "1500", "50.0", "total: 1 kernel launch"],
            [INTERPRETER_BANNER],
        ),
        ((_kernel("fused_0", None),), False, [INTERPRETER_BANNER, "fused_0"], ["1500"]),
        (
            (_kernel("view_0", None, launches=False), _kernel("fused_1", 0.001)),
            True,
            ["view_0", "alias", "total: 1 kernel launch", "3000"],
            [INTERPRETER_BANNER],
        ),
    ],
    ids=["timed", "interpreter", "alias-and-kernel"],
)
def test_kernel_table(kernels, meaningful, present, absent):
    table = format_kernel_table(_profile(kernels, meaningful))
    header = table.splitlines()[1]
    assert header.split() == [
        "#",
        "kernel",
        "scheduler",
        "grid",
        "warps",
        "time",
        "us",
        "input",
        "MB",
        "output",
        "MB",
        "GB/s",
        "%",
        "peak",
    ]
    for text in present:
        assert text in table
    for text in absent:
        assert text not in table


def test_bench_hands_its_options_to_the_benchmark(monkeypatch):
    import hfuse.tools.bench

    received = []
    monkeypatch.setattr(hfuse.tools.bench, "main", lambda argv: received.append(argv) or 7)
    assert main(["bench", "--sizes", "large", "--only", "qkv_split"]) == 7
    assert received == [["--sizes", "large", "--only", "qkv_split"]]


@pytest.mark.parametrize(
    ("example", "argv", "expected"),
    [
        ("qkv_split", [], ["0 kernel launch(es)", "view: T7 = T0.as_strided", "nothing runs on the device"]),
        ("qkv_split", ["--no-alias"], ["1 kernel launch(es)", "segment 0: pointwise (hfuse_pointwise_g0)"]),
        ("qkv_split", ["--strategy", "naive"], ["3 kernel launch(es)", "segment 2: pointwise"]),
        ("cross_entropy", [], ["2 kernel launch(es)", "tensors that cross kernels", "merges refused:"]),
        (
            "qk_norm",
            [],
            ["1 kernel launch(es)", "horizontal (hfuse_horizontal_g0)", "    segment 2: normalization"],
        ),
        ("linear_gelu", [], ["segment 0: torch (no kernel)", "generated kernels cannot call it"]),
    ],
    ids=["seed-views", "seed-contiguous", "seed-naive", "cross-entropy", "qk-norm", "linear-gelu"],
)
def test_segments_explains_the_cut(capsys, example, argv, expected):
    code, out, err = run_cli(capsys, "segments", str(get_example(example).path), *argv)
    assert (code, err) == (0, "")
    for text in expected:
        assert text in out


def test_segments_can_print_the_generated_code(capsys):
    code, out, _ = run_cli(capsys, "segments", str(get_example("softmax").path), "--code")
    assert code == 0
    assert "@triton.jit" in out and "tl.max(" in out


HOSTILE_COMMENT = '# </pre><script>alert("x")</script><img src="http://example.com/x.png">\n'


def _report(capsys, tmp_path, *argv: str) -> tuple[int, str]:
    script = tmp_path / "qkv.py"
    script.write_text(HOSTILE_COMMENT + get_example("qkv_split").text)
    page = tmp_path / "report.html"
    code, out, err = run_cli(capsys, "report", str(script), "-o", str(page), *argv)
    assert err == "" and out.startswith(f"wrote {page}")
    return code, page.read_text(encoding="utf-8")


def test_report_is_one_self_contained_page_of_the_fusion_and_its_run(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HFUSE_CACHE_DIR", str(tmp_path / "cache"))
    code, page = _report(capsys, tmp_path, "--device", "cpu", "--no-alias")
    assert code == 0
    assert "Run: backend hfuse on cpu" in page and "matches the torch reference" in page
    assert "hfuse 1, naive 3" in page  # kernels of each strategy, contiguous outputs
    assert page.count("@triton.jit") == 1 + 3  # each kernel's Triton source, per strategy
    if shutil.which("dot"):
        assert page.count("<svg") == 4  # the IR, both segmentations and the run's shaded one, inline
    # the definition's text is shown, never interpreted by the browser; nothing comes from the network
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert not re.search(r"<(script|img|iframe|link|object|embed)\b", page)
    assert not re.search(r"""(href|src)=["']?https?:""", page)


def test_report_without_a_run_reads_shapes_only(capsys, tmp_path):
    code, page = _report(capsys, tmp_path, "--no-run")
    assert code == 0
    assert "Run:" not in page and "Segmentation: hfuse (fused), 0 kernel launch(es)" in page


def test_a_report_holds_the_comparison_measured_beside_the_run():
    from hfuse import load
    from hfuse.service.measure import Timing
    from hfuse.tools.report import RunSummary, compile_strategies, report_html

    script = load(ADD.text, device="meta")
    timings = (
        Timing("hfuse", 1, 20.0, (19.5, 20.0, 21.0), 15.0, 30.0, 24_000),
        Timing("eager", 3, 60.0, (58.0, 60.0, 64.0), 27.0, 150.0, 24_000),
        Timing("clone", 0, 18.0, (18.0, 18.0, 18.0), 14.0, 14.5, 24_000),
    )
    run = RunSummary("hfuse", "NVIDIA H200", None, True, "", timings)
    page = report_html(script, compile_strategies(script, True), True, run)
    assert "Beside torch, measured in one run" in page
    assert '<td class="n">eager</td><td class="n">3</td><td class="n">60.0</td>' in page
    assert '<td class="n">58.0 - 64.0</td>' in page and '<td class="n">90.0</td>' in page  # 18 / 20 of clone
