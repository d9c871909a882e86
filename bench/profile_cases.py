"""One call each of hfuse and torch.compile per case, between cudaProfilerStart and Stop, for Nsight
Compute to read the hardware counters of their kernels (GPU only):

    PYTHONPATH=. ncu --clock-control none --profile-from-start off --csv --metrics METRICS \\
        python3 bench/profile_cases.py [--size extended-large] case ...

A case is an example of the suite at `--size`, compiled by torch.compile as its plain torch function, or
the path of a fusion script, compiled as hfuse's reference of the fusion. Every case is compiled,
validated and warmed up first, outside the profiled range. Printed: each case's fusion bytes (inputs
read and outputs written), then the order of the profiled calls, which ncu's kernel IDs follow (a
case's hfuse kernels, then torch.compile's).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from hfuse.baselines import baseline
from hfuse.examples import get_example
from hfuse.loader import load
from hfuse.service.measure import baseline_function


def prepared(name: str, size: str) -> list[tuple[str, object]]:
    """The case's hfuse call and torch.compile call, both run twice."""
    from_file = name.endswith(".py")
    script = load(Path(name).read_text() if from_file else get_example(name, size).text, device="cuda")
    fd, inputs = script.fd, script.inputs
    outputs = fd.execute(inputs, alias_outputs=False, profile=True)
    profile = fd.profile()
    print(f"case {name} bytes {profile.input_bytes + profile.output_bytes}", flush=True)
    plain = None if from_file else baseline(name, size)
    compiled = torch.compile(baseline_function(script.fusion, outputs, plain), dynamic=False)
    calls = [
        ("hfuse", lambda: fd.execute(inputs, alias_outputs=False)),
        ("torch.compile", lambda: compiled(*inputs)),
    ]
    for _, call in calls * 2:
        call()
    return calls


def main(argv: list[str]) -> None:
    size = "extended-large"
    if argv[:1] == ["--size"]:
        size, argv = argv[1], argv[2:]
    # every case compiles the same baseline function's code: past Dynamo's recompile limit (8 cases), the
    # later ones would run eagerly under the torch.compile label
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, len(argv))
    runs = [(name, prepared(name, size)) for name in argv]
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for name, calls in runs:
        for label, call in calls:
            print(f"run {name} {label}", flush=True)
            call()
            torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main(sys.argv[1:])
