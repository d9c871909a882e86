"""Kernels stay inside their tensors: random fusions (and a split row over a cat, where a part's shift
value was once read outside the cat's other piece) run in Triton's interpreter on tensors bordered by
memory nothing may touch, in the default layouts and split across programs. An access outside a tensor
kills the child process (an illegal memory access on the GPU, silent in the interpreter otherwise)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="guards the interpreter's host memory")

RUNNER = Path(__file__).with_name("guarded_run.py")
FUSIONS = 16
SEED = 11


def test_no_kernel_reads_or_writes_outside_its_tensors():
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(SEED), str(FUSIONS)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=RUNNER.parent,
    )
    last_fusion = done.stdout.rsplit("import torch", 1)[-1][-3000:]
    if done.returncode == -signal.SIGSEGV:
        pytest.fail(f"a kernel reached outside a tensor; the fusion it ran:\nimport torch{last_fusion}")
    assert done.returncode == 0, done.stderr[-3000:]
