"""The fuzzing campaign (`python -m hfuse.tools.fuzz`): mutated scripts and random fusions, each ending
in a result or a located HfuseError."""

from hfuse.tools.fuzz.campaign import (
    FAILURE,
    OK,
    check_recipe,
    check_script,
    fuzz_fusions,
    fuzz_scripts,
    main,
)

__all__ = ["FAILURE", "OK", "check_recipe", "check_script", "fuzz_fusions", "fuzz_scripts", "main"]
