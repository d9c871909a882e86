"""The engine needs only torch and Triton: the app's packages stay out of it, and `import hfuse`
does not even start Triton."""

import subprocess
import sys

import pytest

CASES = [
    ("import hfuse", ["triton", "streamlit", "graphviz"]),
    ("import hfuse, hfuse.runtime, hfuse.pipeline, hfuse.tools.cli, hfuse.loader", ["streamlit", "graphviz"]),
    ("import hfuse.service.worker, hfuse.edit, hfuse.export, hfuse.share", ["streamlit", "graphviz"]),
    ("import hfuse.viz", ["streamlit"]),
]


@pytest.mark.parametrize(("statement", "absent"), CASES, ids=[c[0] for c in CASES])
def test_importing_the_engine_leaves_out(statement, absent):
    probe = f"{statement}\nimport sys\nprint(sorted(m for m in {absent!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
