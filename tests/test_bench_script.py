"""The standalone benchmark script of a fusion, run for real in Triton's interpreter on the CPU."""

import ast
import os
import subprocess
import sys

import pytest

from hfuse.errors import UnsupportedError
from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.pipeline import compile_fusion
from hfuse.tools.bench_script import bench_script
from hfuse.tools.cli import main

# Runs a script where `import hfuse` fails, as on a machine with torch and Triton only.
STANDALONE = (
    "import runpy, sys; sys.modules['hfuse'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)
CUMSUM = """
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.cumsum(fd.ops.exp(t0), dim=1))
"""

# inputs of a define_vector: a list in the script's inputs, one scalar input each in the fusion
VECTOR_RESHAPE = """import torch
from nvfuser import FusionDefinition

inputs = [torch.randn([2, 2, 2, 2, 2, 2]), [2, 2, 2, 8]]

with FusionDefinition() as fd:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.ops.reshape(t0, fd.define_vector(4))
    fd.add_output(fd.ops.sum(t1, dims=[3]))

fd.execute(inputs)
"""


def run_script(path, *, without_hfuse: bool = False) -> str:
    command = [sys.executable, "-c", STANDALONE] if without_hfuse else [sys.executable]
    done = subprocess.run(
        [*command, str(path), "--device", "cpu"],
        env={**os.environ, "TRITON_INTERPRET": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("example", "no_alias", "kernels"),
    [("softmax", False, 1), ("qkv_split", True, 1), ("qkv_split", False, 0)],
    ids=["softmax", "qkv-contiguous", "qkv-views"],
)
def test_the_script_runs_the_kernels_and_matches_torch_eager(tmp_path, example, no_alias, kernels):
    path = tmp_path / "bench_fusion.py"
    args = ["bench-script", str(get_example(example).path), "-o", str(path)]
    assert main(args + (["--no-alias"] if no_alias else [])) == 0

    printed = run_script(path)

    assert f"kernels: {kernels};" in printed
    difference = float(printed.split("max abs difference from torch eager: ")[1].split()[0])
    assert difference < 1e-5
    rows = [line.split()[0] for line in printed.splitlines()[-3:]]
    assert rows == ["hfuse", "torch", "clone"]


def test_a_vector_of_the_scripts_inputs_becomes_one_scalar_input_each(tmp_path):
    source, path = tmp_path / "vector.py", tmp_path / "bench_vector.py"
    source.write_text(VECTOR_RESHAPE)
    assert main(["bench-script", str(source), "-o", str(path)]) == 0

    printed = run_script(path)

    assert float(printed.split("max abs difference from torch eager: ")[1].split()[0]) < 1e-5


def test_the_script_needs_only_torch_and_triton(tmp_path):
    path = tmp_path / "bench_fusion.py"
    script = load(get_example("softmax").text, device="meta")
    path.write_text(bench_script(script, compile_fusion(script.fusion)))
    top_imports = {
        alias.name.split(".")[0]
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert top_imports == {"argparse", "importlib", "os", "tempfile", "time", "torch", "triton"}

    printed = run_script(path, without_hfuse=True)

    assert "need hfuse's reference (pip install hfuse): skipped" in printed
    assert [line.split()[0] for line in printed.splitlines()[-2:]] == ["hfuse", "clone"]


def test_a_fusion_with_a_segment_run_by_torch_has_no_standalone_script():
    script = load(CUMSUM, device="meta")
    with pytest.raises(UnsupportedError, match="run in torch, not as generated kernels"):
        bench_script(script, compile_fusion(script.fusion))
