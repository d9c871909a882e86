"""Lines of a script that set up its process, not its fusion: seeds, device syncs, backend flags, and the
modules a test imports for its own use. The loader passes over them: nothing is imported, called or set.

`torch.manual_seed(0)`, `torch.cuda.synchronize()`, `torch.backends.cuda.matmul.allow_tf32 = True`,
`import pytest`, `os.environ["NVFUSER_DUMP"] = "python_definition"`, `np.random.seed(0)` are such lines.
A module imported this way has no values: using it for the definition or its inputs is refused, with
the line, as any other name the loader does not read.
"""

from __future__ import annotations

import ast
from typing import Any

from hfuse.loader.source import dotted_name
from hfuse.loader.torch_api import TorchNamespace
from hfuse.loader.torch_cuda import SET_UP_CALLS as CUDA_SET_UP_CALLS
from hfuse.loader.values import CallSite, Interpreted

# calls on torch that change the process (seeds, syncs, modes), never the fusion or its inputs' values
ENVIRONMENT_CALLS = frozenset(
    {
        "torch.manual_seed",
        "torch.seed",
        "torch.random.manual_seed",
        *(f"torch.cuda.{name}" for name in CUDA_SET_UP_CALLS),
        "torch.set_grad_enabled",
        "torch.set_printoptions",
        "torch.set_float32_matmul_precision",
        "torch.use_deterministic_algorithms",
    }
)
# torch's flags, set by assignment: `torch.backends.cudnn.benchmark = False`
ENVIRONMENT_FLAGS = ("torch.backends.", "torch._dynamo.config.", "torch._inductor.config.")
# modules tests and repro scripts import for themselves; calls on them are passed over, but for those of
# PROCESS_MODULES, refused: a script sets `os.environ[...]`, it has no reason to call into the system
PROCESS_MODULES = frozenset({"os", "sys"})
UNREAD_MODULES = PROCESS_MODULES | {
    "gc",
    "time",
    "random",
    "warnings",
    "logging",
    "pytest",
    "unittest",
    "numpy",
}


class UnreadModule(Interpreted):
    """A module the script imports for its own use (`import pytest`): every attribute is another one,
    and nothing of it can be called or read as a value."""

    def __init__(self, name: str):
        self.name = name
        self.label = f"{name} (imported for the script's own use; hfuse reads none of it)"

    def attribute(self, name: str) -> Any:
        return UnreadModule(f"{self.name}.{name}")

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Any:
        raise site.error(
            f"{self.name}() is not read: a definition and its inputs are built from nvFuser's fd, Python "
            "and torch's tensor constructors; lines that only set up the process are passed over"
        )


def sets_up_the_process(statement: ast.stmt, lookup) -> bool:
    """Whether `statement` only sets up the script's process: a call of ENVIRONMENT_CALLS or of an
    unread module (not of PROCESS_MODULES), or an assignment to torch's flags or into an unread module.
    `lookup(name)` is what the script's name is bound to."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        return _is_environment(statement.value.func, lookup, calls=True)
    if isinstance(statement, ast.Assign):
        return all(_is_environment(target, lookup, calls=False) for target in statement.targets)
    if isinstance(statement, ast.AugAssign | ast.AnnAssign):
        return _is_environment(statement.target, lookup, calls=False)
    return False


def _is_environment(node: ast.expr, lookup, *, calls: bool) -> bool:
    while isinstance(node, ast.Subscript):  # os.environ["X"] = "1"
        node = node.value
    if not isinstance(node, ast.Attribute):
        return False
    name = dotted_name(node)
    root = lookup(name.split(".")[0])
    if isinstance(root, UnreadModule):
        return not calls or root.name.split(".")[0] not in PROCESS_MODULES
    if not _is_torch(root):
        return False
    torch_name = "torch" + name[name.index(".") :]
    if calls:
        return torch_name in ENVIRONMENT_CALLS
    return torch_name.startswith(ENVIRONMENT_FLAGS)


def _is_torch(value: Any) -> bool:
    return isinstance(value, TorchNamespace) and value.label == "torch"
