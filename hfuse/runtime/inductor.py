"""The "inductor" backend: torch.compile of the reference evaluation, the baseline to measure against."""

from __future__ import annotations

from collections.abc import Callable

import torch

from hfuse.errors import UnsupportedError
from hfuse.ir import Fusion
from hfuse.reference import evaluate
from hfuse.runtime.device import has_cuda


def compile_with_inductor(fusion: Fusion) -> Callable[..., list]:
    """A function of the fusion's inputs that returns its outputs, compiled by TorchInductor for the GPU.
    Inductor compiles lazily: the first call pays the compile."""
    if not has_cuda():
        raise UnsupportedError(
            "the inductor backend compiles for a CUDA GPU and none is available here: "
            "use backend='hfuse', 'naive' or 'eager' on this machine"
        )
    return torch.compile(lambda *inputs: evaluate(fusion, list(inputs)), dynamic=False)
