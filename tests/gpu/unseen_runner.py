"""Runs one collected definition of tests/unseen/ on the GPU and prints its verdict as one JSON line.

Used by test_unseen_gpu.py in a child process per definition: `python unseen_runner.py SCRIPT`. The script
is loaded on CUDA with the inputs it makes, the torch reference (the eager backend) computes the expected
outputs once, then each run (hfuse with views, hfuse with contiguous outputs, naive) executes the
definition as the script does, `fd.execute`, on fresh copies of the inputs in their own layouts; hfuse
validates every first run itself (HFUSE_ALWAYS_VALIDATE is set by the caller) and the outputs are
compared with the reference here as well. The last line of stdout starts with VERDICT_MARK.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for the corpus's helpers
from unseen_corpus import fresh_copies  # noqa: E402

from hfuse.errors import HfuseError  # noqa: E402
from hfuse.loader import load  # noqa: E402
from hfuse.magnitude import output_magnitudes  # noqa: E402
from hfuse.tolerance import compare, reduction_size  # noqa: E402

VERDICT_MARK = "UNSEEN-VERDICT "

# run id -> (backend, alias_outputs)
RUNS = {"hfuse": ("hfuse", True), "hfuse-contiguous": ("hfuse", False), "naive": ("naive", False)}


def _error(err: Exception) -> str:
    return f"{type(err).__name__}: {err}"


def _run(
    script,
    expected: list[torch.Tensor],
    magnitudes: Callable[[], dict[str, torch.Tensor]],
    backend: str,
    alias_outputs: bool,
) -> dict[str, Any]:
    fusion = script.fusion
    shown = [o.name for o in fusion.outputs if o.alias_input is None]
    wanted = dict(zip(shown, expected, strict=True))
    try:
        outputs = script.fd.execute(fresh_copies(script.inputs), backend=backend, alias_outputs=alias_outputs)
        torch.cuda.synchronize()
    except Exception as err:  # the verdict names any failure, hfuse's own or not
        return {"ok": False, "message": _error(err)}
    if len(outputs) != len(shown):
        return {"ok": False, "message": f"{len(outputs)} outputs, the reference has {len(shown)}"}
    for name, actual in zip(shown, outputs, strict=True):
        dtype, size = fusion.value(name).dtype, reduction_size(fusion, name)
        result = compare(actual, wanted[name], dtype, size)
        if not result.ok and name in magnitudes():  # as hfuse's validation: a cancellation rounded otherwise
            result = compare(actual, wanted[name], dtype, size, magnitudes()[name])
        if not result.ok:
            return {"ok": False, "message": f"output {name}: {result.message}"}
    return {"ok": True, "message": ""}


def verdict(path: Path) -> dict[str, Any]:
    """{"load_error": ...} when the script does not load, else {"runs": {run id: {"ok", "message"}}}."""
    try:
        script = load(path.read_text(encoding="utf-8"), device="cuda")
    except HfuseError as err:
        return {"load_error": _error(err)}
    expected = script.fd.execute(fresh_copies(script.inputs), backend="eager")
    fusion = script.fusion

    @functools.cache
    def magnitudes() -> dict[str, torch.Tensor]:
        """Of each output (none for a fusion that writes into its inputs), made when a comparison fails."""
        if any(out.alias_input for out in fusion.outputs):
            return {}
        found = output_magnitudes(fusion, fresh_copies(script.inputs))
        return {out.name: m for out, m in zip(fusion.outputs, found, strict=True)}

    return {"runs": {run: _run(script, expected, magnitudes, *how) for run, how in RUNS.items()}}


if __name__ == "__main__":
    print(VERDICT_MARK + json.dumps(verdict(Path(sys.argv[1]))), flush=True)
